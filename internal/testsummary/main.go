// Command testsummary reads `go test -json` output on standard input and
// prints what plain `go test` prints (each package's ok/FAIL line, the full
// output of every failing test, build errors), then every skipped test
// with its reason and a closing line "N passed, N failed, N skipped".
// `.ci/run` pipes the README's test command through it, so that tests that
// skip are seen.
//
//	GOFLAGS=-json go test -race ./... | go run ./internal/testsummary
//
// It exits 1 when any test or package failed, or when the input held no
// test at all.
package main

import (
	"fmt"
	"os"
)

func main() {
	s, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if s.failed > 0 || s.pkgFailed > 0 || s.passed+s.failed+s.skipped == 0 {
		os.Exit(1)
	}
}
