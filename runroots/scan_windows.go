//go:build windows

package runroots

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/hab-gc/hab-gc/pkgstore"
)

const windowsPartial = "on Windows only each process's image and loaded modules are read, not its open files, working directory, environment or command line"

// scan matches each process's image and modules against the store
// (pkgstore.WindowsStorePath).
func scan(ctx context.Context, procRoot string, inv *pkgstore.Inventory) (*procScan, error) {
	fsRoot := inv.FSRoot
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: CreateToolhelp32Snapshot: %w", ErrNoProc, err)
	}
	defer windows.CloseHandle(snap)
	res := &procScan{Partial: windowsPartial}
	m := &matcher{stores: []string{"/store/"}}
	add := func(pid int, comm, p string, kind useKind) {
		rest, ok := pkgstore.WindowsStorePath(p, fsRoot)
		if !ok {
			return
		}
		id, file, hidden, ok := m.match("/store/" + rest)
		if !ok || (inv.Installed(id) == nil && !hidden) {
			return
		}
		u := procUse{PID: pid, Comm: comm, Ident: id, Kind: kind, File: file, Hidden: hidden}
		if !slices.ContainsFunc(res.Uses, func(o procUse) bool { return o.PID == u.PID && o.Ident == u.Ident && o.Kind == u.Kind }) {
			res.Uses = append(res.Uses, u)
		}
	}
	self := os.Getpid()
	var pe windows.ProcessEntry32
	pe.Size = uint32(unsafe.Sizeof(pe))
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pid := int(pe.ProcessID)
		if pid == 0 || pid == self {
			continue // the idle process; this one
		}
		res.Processes++
		comm := windows.UTF16ToString(pe.ExeFile[:])
		image, ierr := processImage(pe.ProcessID)
		if ierr == nil {
			add(pid, comm, image, kindExe)
		}
		mods, merr := processModules(pe.ProcessID)
		for _, mod := range mods {
			add(pid, comm, mod, kindMap)
		}
		switch first := errors.Join(ierr, merr); {
		case first == nil:
			res.Inspected++
		case errors.Is(first, windows.ERROR_INVALID_PARAMETER):
			res.Vanished++ // exited meanwhile
		case errors.Is(first, windows.ERROR_ACCESS_DENIED) || errors.Is(first, windows.ERROR_PARTIAL_COPY):
			res.Denied++
			res.deniedOne(pid, comm)
			if merr != nil {
				res.MapsDenied++
			}
		default:
			res.Failed++
			if res.FailedExample == "" {
				res.FailedExample = fmt.Sprintf("process %d (%s): %v", pid, printable(comm), first)
			}
		}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("%w: Process32Next: %w", ErrNoProc, err)
	}
	slices.SortStableFunc(res.Uses, func(a, b procUse) int { return a.PID - b.PID })
	return res, nil
}

func processImage(pid uint32) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return "", err
	}
	return windows.UTF16ToString(buf[:n]), nil
}

func processModules(pid uint32) ([]string, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPMODULE|windows.TH32CS_SNAPMODULE32, pid)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(snap)
	var out []string
	var me windows.ModuleEntry32
	me.Size = uint32(unsafe.Sizeof(me))
	for err = windows.Module32First(snap, &me); err == nil; err = windows.Module32Next(snap, &me) {
		out = append(out, windows.UTF16ToString(me.ExePath[:]))
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return out, err
	}
	return out, nil
}
