// Package testtool finds the external programs some tests need (flock,
// setpriv, shellcheck, systemd-analyze, mkfs.ext2, ...).
//
// A test calls Need before using one. When the program is missing, the
// test is skipped with t.Skip, saying what to install, so that `go test -v`
// and `.ci/run`'s summary show it; but in CI (the environment variable CI
// is "true"), where `.ci/run` installs every such program, a missing one is
// a failure: a test that quietly checks nothing must not look green there.
package testtool
