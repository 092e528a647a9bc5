// Checks of the journal that its unix and Windows tests share.

package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// checkRotatedFiles checks the files of j after 20 appends with Keep 2:
// the journal and two rotated files, none past MaxSize, and no third.
func checkRotatedFiles(t *testing.T, j Journal) {
	t.Helper()
	for n := 0; n <= 2; n++ {
		fi, err := os.Stat(filepath.Join(j.Dir, rotated(n)))
		if err != nil {
			t.Fatalf("%s: %v", rotated(n), err)
		}
		if fi.Size() > j.MaxSize {
			t.Errorf("%s is %d bytes, more than MaxSize %d", rotated(n), fi.Size(), j.MaxSize)
		}
	}
	if _, err := os.Stat(filepath.Join(j.Dir, rotated(3))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a third rotated file exists with Keep 2: %v", err)
	}
}

// checkRotatedRecords checks the records read back after 20 appends
// (BytesFreed 0 to 19) and rotations: in order, the newest last.
func checkRotatedRecords(t *testing.T, got []Record) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if !got[i-1].Time.Before(got[i].Time) {
			t.Fatalf("records out of order at %d: %v then %v", i, got[i-1].Time, got[i].Time)
		}
	}
	if last := got[len(got)-1]; last.BytesFreed != 19 {
		t.Fatalf("newest record lost: %+v", last)
	}
}

// appendConcurrently appends 25 times two records (rec(n, an ident) and
// rec(n, "")) from each of writers goroutines at once, failing the test
// on any error.
func appendConcurrently(t *testing.T, j Journal, writers int, rec func(int, string) Record) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				if err := j.Append([]Record{rec(w*100+i, "core/a/1/20200101000000"), rec(w*100+i, "")}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// appendTwoRead appends want[0], then want[1] (a run's record), to j and
// reads them back: in order, the first's ident, the second's kind and time.
func appendTwoRead(t *testing.T, j Journal, want []Record) {
	t.Helper()
	if err := j.Append(want[:1]); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(want[1:]); err != nil {
		t.Fatal(err)
	}
	got, notes, err := j.Read()
	if err != nil || len(notes) != 0 {
		t.Fatalf("read: %v %v", notes, err)
	}
	if len(got) != 2 || got[0].Ident != want[0].Ident || got[1].Kind != KindRun || !got[1].Time.Equal(want[1].Time) {
		t.Fatalf("%s: got %+v", j.Dir, got)
	}
}

// recFor is the i'th record of a run over fsRoot: of a release removed
// (BytesFreed i), or with ident "", of the run.
func recFor(fsRoot string, i int, ident string) Record {
	r := Record{Time: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Kind: KindRelease, RunID: fmt.Sprint("run-", i),
		Job: JobRun, FSRoot: fsRoot, Policy: Policy{KeepLatest: 1, MinAge: "1h"}, Ident: ident, Outcome: "removed", BytesFreed: int64(i)}
	if ident == "" {
		r.Kind, r.Outcome = KindRun, RunOK
	}
	return r
}

// mustForFSRoot is ForFSRoot(root), failing the test on an error.
func mustForFSRoot(t *testing.T, root string) Journal {
	t.Helper()
	j, err := ForFSRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
