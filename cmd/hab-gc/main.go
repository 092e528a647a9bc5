// Command hab-gc removes old releases from a Habitat package store and never
// anything still needed. See README.md, or run hab-gc --help.
package main

import "os"

func main() { os.Exit(Main()) }

// Main runs hab-gc with the process's arguments and streams and returns
// its exit code.
func Main() int {
	return execute(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
}
