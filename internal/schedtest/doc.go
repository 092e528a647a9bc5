// Package schedtest writes schedule definition files (the TOML files of a
// schedules directory, see docs/schedules.md) for tests: the few
// definitions tests of the scheduler and of `hab-gc daemon` use again and
// again, and the directory they go in.
//
// It is internal: importers of hab-gc must not depend on it.
package schedtest
