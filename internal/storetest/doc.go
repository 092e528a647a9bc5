// Package storetest builds Habitat package stores on a real filesystem for
// tests and benchmarks: a declarative Builder for small hand-made stores
// (releases with deps, specs, binlinks, every kind of damage) and Generate
// for large synthetic stores with a realistic shape.
//
// It is internal: importers of hab-gc must not depend on it.
package storetest
