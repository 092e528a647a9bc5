package runroots

import (
	"context"
	"fmt"
	"strings"

	"github.com/hab-gc/hab-gc/internal/inuse"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// finder is a Mode reading the processes under procRoot
// (DefaultProcRoot when empty).
type finder struct {
	procRoot string
	mode     Mode
}

// FindRoots makes each release in use a root. Found.Counts holds the
// scan's counts (procScan.Found), "installs_held_open" and, when blind,
// the write-lease probe's.
func (f finder) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (inuse.Found, error) {
	switch f.mode {
	case ModeOff:
		return inuse.Found{}, nil
	case ModeOn, ModeBestEffort:
	default:
		return inuse.Found{}, fmt.Errorf("runtime roots: %w: %s", ErrBadMode, f.mode)
	}
	res, err := scanProcs(ctx, f.procRoot, inv)
	if err != nil {
		return inuse.Found{}, fmt.Errorf("runtime roots: %w", err)
	}
	found := res.Found()
	found.Installs = res.installs(inv)
	found.Counts["installs_held_open"] = len(found.Installs)
	if res.Blind() {
		found.Probe = leaseProbe{fsRoot: inv.FSRoot, store: storeDir(inv.FSRoot), scan: res, bestEffort: f.mode == ModeBestEffort}.probe
	}
	return found, nil
}

// Found makes each release in use a root, named after its first user.
func (r *procScan) Found() inuse.Found {
	type agg struct {
		first procUse
		pids  map[int]bool
	}
	byIdent := map[pkgstore.Ident]*agg{}
	var order []pkgstore.Ident
	for _, u := range r.Uses {
		a := byIdent[u.Ident]
		if a == nil {
			a = &agg{first: u, pids: map[int]bool{}}
			byIdent[u.Ident] = a
			order = append(order, u.Ident)
		}
		a.pids[u.PID] = true
	}
	out := inuse.Found{Source: "processes", Summary: r.Summary(), Counts: map[string]int{
		"processes": r.Processes, "inspected": r.Inspected, "denied": r.Denied,
		"vanished": r.Vanished, "failed": r.Failed, "releases_in_use": len(order),
	}}
	if r.Blind() {
		out.Counts["blind"] = 1
		out.Counts["maps_denied"] = r.MapsDenied
		for k, v := range map[string]bool{"not_root": r.NotRoot, "no_ptrace": r.NoPtrace, "hidepid": r.hiding(), "child_pid_namespace": r.ChildPIDNamespace} {
			if v {
				out.Counts[k] = 1
			}
		}
	}
	for _, id := range order {
		a := byIdent[id]
		text := a.first.String() + andOthers(len(a.pids)-1, " uses it", " use it")
		out.Roots = append(out.Roots, inuse.Root{Ident: id, Code: inuse.CodeInUse, Text: text})
	}
	return out
}

// Summary says in one sentence what the scan saw and could not see.
func (r *procScan) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "runtime roots: %d of %d processes inspected", r.Inspected, r.Processes)
	var not []string
	if r.Denied > 0 {
		hint := ""
		switch {
		case r.NotRoot:
			hint = "; run as root to see every process"
		case r.NoPtrace:
			hint = "; root without CAP_SYS_PTRACE"
		}
		not = append(not, fmt.Sprintf("%d could not be inspected fully (permission denied%s)", r.Denied, hint))
	}
	if r.Vanished > 0 {
		not = append(not, fmt.Sprintf("%d exited while being read", r.Vanished))
	}
	if r.Failed > 0 {
		not = append(not, fmt.Sprintf("%d could not be read (%s)", r.Failed, r.FailedExample))
	}
	if r.ChildPIDNamespace {
		not = append(not, "in a child PID namespace: processes outside it are not listed")
	}
	if r.NotRoot {
		not = append(not, "not run as root: other users' processes may be hidden (hidepid) or unreadable")
	} else if r.hiding() {
		not = append(not, "/proc is mounted with hidepid="+r.HidePID+": processes root cannot trace are hidden")
	}
	if r.Partial != "" {
		not = append(not, r.Partial)
	}
	if len(not) > 0 {
		b.WriteString("; " + strings.Join(not, "; "))
	}
	n := map[pkgstore.Ident]bool{}
	for _, u := range r.Uses {
		n[u.Ident] = true
	}
	fmt.Fprintf(&b, "; %d release(s) in use", len(n))
	if len(r.Held) > 0 {
		paths := map[string]bool{}
		for _, h := range r.Held {
			paths[h.Path] = true
		}
		fmt.Fprintf(&b, "; %d install(s) in progress held open", len(paths))
	}
	return b.String()
}
