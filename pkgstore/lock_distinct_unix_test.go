//go:build unix

package pkgstore

import (
	"slices"
	"strings"
	"testing"
)

// TestHoldersDistinct: the lock table may list one process several times
// for one file; it is one holder, so that LockedError names it.
func TestHoldersDistinct(t *testing.T) {
	table := "1: FLOCK  ADVISORY  WRITE 24785 fd:01:77 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 24785 fd:01:77 0 EOF\n" +
		"3: FLOCK  ADVISORY  READ  24785 fd:01:77 0 EOF\n" +
		"4: FLOCK  ADVISORY  READ  99 fd:01:78 0 EOF\n"
	exact, byIno, err := parseLocks(strings.NewReader(table), 0xfd, 1, 77)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(exact, []int{24785}) || !slices.Equal(byIno, []int{24785}) {
		t.Fatalf("holders %v (by inode %v), want [24785]", exact, byIno)
	}
}
