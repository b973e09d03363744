package web

// DiffText exposes the version diff to the external tests.
var DiffText = diffText
