// Package templates holds the console's templ components: one file per
// feature. Full pages end in Page and wrap Layout; htmx partials are named
// after the element they replace and carry a stable id.
package templates

//go:generate go tool templ generate
