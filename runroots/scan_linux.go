package runroots

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hab-gc/hab-gc/pkgstore"
	"golang.org/x/sys/unix"
)

// scan reads GOMAXPROCS processes at once.
func scan(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*procScan, error) {
	ix := identityOf(inv)
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	m, err := newMatcher(inv.FSRoot)
	if err != nil {
		return nil, err
	}
	pids, err := listPIDs(procRoot)
	if err != nil {
		return nil, err
	}
	res := &procScan{Processes: len(pids), NotRoot: os.Geteuid() != 0, HidePID: hidePID(procRoot)}
	res.NoPtrace = !res.NotRoot && !hasCap(unix.CAP_SYS_PTRACE)
	res.ChildPIDNamespace = inChildPIDNamespace()
	workers := min(runtime.GOMAXPROCS(0), max(len(pids), 1))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := reader{m: m, ix: ix, proc: procRoot, store: statStore(m.storeDir)}
			for pid := range next {
				st := r.process(pid)
				mu.Lock()
				res.count(&st)
				mu.Unlock()
			}
		}()
	}
	for _, pid := range pids {
		if ctx.Err() != nil {
			break
		}
		next <- pid
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.sort()
	return res, nil
}

func listPIDs(procRoot string) ([]int, error) {
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	var pids []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		// A mounted proc lists at least the reader: this is not proof.
		return nil, fmt.Errorf("%w: %s lists no process: proc is not mounted there", ErrNoProc, procRoot)
	}
	return pids, nil
}

func (r *procScan) count(st *procState) {
	r.Uses = append(r.Uses, st.uses...)
	r.Held = append(r.Held, st.held...)
	switch {
	case st.vanished:
		r.Vanished++
	case st.denied:
		r.Denied++
		r.deniedOne(st.pid, st.comm)
		if st.mapsDenied {
			r.MapsDenied++
		}
	case st.failed != "":
		if r.Failed == 0 {
			r.FailedExample = st.failed
		}
		r.Failed++
	default:
		r.Inspected++
	}
}

func (r *procScan) sort() {
	slices.SortFunc(r.Uses, func(a, b procUse) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		if c := slices.Index(kindOrder, a.Kind) - slices.Index(kindOrder, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Ident.String(), b.Ident.String())
	})
	slices.SortFunc(r.Held, func(a, b procHeld) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// statStore is nil when the store cannot be compared: every install may
// be into it.
func statStore(dir string) *unix.Stat_t {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return nil
	}
	return &st
}

var kindOrder = []useKind{kindExe, kindMap, kindFD, kindCwd, kindRoot, kindEnv, kindCmdline}
