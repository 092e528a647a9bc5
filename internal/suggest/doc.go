// Package suggest is the one "(did you mean K?)" of an unknown key in
// hab-gc.toml, an unknown HAB_GC_ variable or a schedule definition's key.
package suggest
