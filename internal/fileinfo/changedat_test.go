//go:build linux

package fileinfo_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/fileinfo"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// TestChangedAt: a modification time ahead of the clock
// is judged by the inode change time, and reported; one behind it is
// LastChange as before; without a clock, LastChange.
func TestChangedAt(t *testing.T) {
	future := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	p := filepath.Join(testtool.TempDir(t), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stat := func(mod time.Time) (os.FileInfo, time.Time) {
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi, ctimeOf(fi)
	}
	fi, ct := stat(future)
	pastFi, pastCt := stat(time.Now().Add(-48 * time.Hour))
	for _, tc := range []struct {
		name       string
		fi         os.FileInfo
		now        time.Time
		want       time.Time
		wantFuture bool
	}{
		{"future mtime: the change time", fi, ct.Add(time.Hour), ct, true},
		{"future mtime, no clock: LastChange", fi, time.Time{}, future, false},
		{"future mtime, clock set back past the change time", fi, ct.Add(-time.Hour), ct, true},
		{"past mtime: the later of both", pastFi, pastCt.Add(time.Hour), pastCt, false},
		{"mtime a moment ahead: not reported", fi, future.Add(-time.Second), ct, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, future := fileinfo.ChangedAt(tc.fi, tc.now)
			if !got.Equal(tc.want) || future != tc.wantFuture {
				t.Errorf("ChangedAt = %s, %v; want %s, %v", got, future, tc.want, tc.wantFuture)
			}
		})
	}
}

func ctimeOf(fi os.FileInfo) time.Time {
	st := fi.Sys().(*syscall.Stat_t)
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
