package store

// ScrubPage is scrubPage, for the tests of package store_test.
var ScrubPage = scrubPage
