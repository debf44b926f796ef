// Package web renders the pages of the web app with templ. Handlers in
// package server gather the data into the view types of this package; the
// components only format it. Every text that comes from users is written
// through templ's escaping, never as raw HTML.
package web
