// Package suggest finds the known word nearest to a misspelt one, for the
// "(did you mean K?)" of an unknown key in hab-gc.toml, an unknown
// HAB_GC_ variable or an unknown key of a schedule definition file: one
// distance and one wording everywhere.
package suggest
