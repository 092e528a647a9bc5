package pkgstore

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseLocks: any /proc/locks text yields only positive pids, the
// exact matches among the inode matches, and the holders of well-formed
// lines.
func FuzzParseLocks(f *testing.F) {
	f.Add("1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 99 08:01:5678 0 EOF\n")
	f.Add("2: POSIX  ADVISORY  WRITE 7 00:2c:5678 0 EOF\n3: FLOCK ADVISORY READ 8 00:2d:5678 0 EOF\n")
	f.Add("4: FLOCK ADVISORY WRITE -1 08:01:5678 0 EOF\n5: FLOCK ADVISORY WRITE 5 zz:01:5678 0 EOF\n")
	f.Fuzz(func(t *testing.T, text string) {
		exact, byIno, err := parseLocks(strings.NewReader(text), 8, 1, 5678)
		if err != nil {
			return
		}
		for _, p := range byIno {
			if p <= 0 {
				t.Fatalf("pid %d", p)
			}
		}
		for _, p := range exact {
			if !slices.Contains(byIno, p) {
				t.Fatalf("exact pid %d not among inode matches %v", p, byIno)
			}
		}
	})
}

func TestParseLocks(t *testing.T) {
	text := `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
1: -> FLOCK  ADVISORY  WRITE 99 08:01:5678 0 EOF
2: POSIX  ADVISORY  WRITE 7 08:01:5678 0 EOF
3: FLOCK  ADVISORY  READ 8 00:2d:5678 0 EOF
4: FLOCK  ADVISORY  WRITE 9 08:01:5679 0 EOF
`
	exact, byIno, err := parseLocks(strings.NewReader(text), 8, 1, 5678)
	if err != nil || !slices.Equal(exact, []int{1234}) || !slices.Equal(byIno, []int{1234, 8}) {
		t.Fatalf("exact %v, by inode %v, %v", exact, byIno, err)
	}
}
