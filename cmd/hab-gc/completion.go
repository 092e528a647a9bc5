package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// identCompletion completes the IDENT arguments of why, list, run and
// history (at most max of them; 0: any number) with the installed
// releases under the store of --fs-root (or FS_ROOT; default /), one
// level at a time: origin/, then origin/name, version, release. It only
// lists directories (safeio.ReadDir: never blocks on a FIFO or device
// where a directory was expected); it never scans, locks or reads
// metadata, so a completion on a big store is as quick as ls. Hidden
// names (install directories, hidden releases) and anything but a
// directory are left out; a part typed as "." or ".." is never listed.
func (a *app) identCompletion(max int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, argv []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if max > 0 && len(argv) >= max {
			return nil, none
		}
		parts := strings.Split(prefix, "/")
		if len(parts) > 4 {
			return nil, none
		}
		typed, last := parts[:len(parts)-1], parts[len(parts)-1]
		for _, p := range typed {
			if p == "" || p == "." || p == ".." || strings.ContainsRune(p, filepath.Separator) {
				return nil, none
			}
		}
		dir := filepath.Join(append([]string{a.completionFSRoot(cmd), "hab", "pkgs"}, typed...)...)
		ents, err := safeio.ReadDir(dir)
		if err != nil {
			return nil, none
		}
		base := strings.Join(typed, "/")
		if base != "" {
			base += "/"
		}
		var out []cobra.Completion
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasPrefix(n, last) {
				continue
			}
			if len(typed) == 0 {
				n += "/" // an origin alone is no ident
			}
			out = append(out, base+n)
		}
		if len(typed) < 3 { // origin/name and origin/name/version may go on
			return out, none | cobra.ShellCompDirectiveNoSpace
		}
		return out, none
	}
}

// completionFSRoot is the FS root a completion lists: --fs-root, else
// FS_ROOT, else this machine's root (/; SYSTEMDRIVE\ on Windows) (the configuration file is not read: a completion
// reads nothing but directory listings).
func (a *app) completionFSRoot(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("fs-root"); f != nil && f.Changed && f.Value.String() != "" {
		return f.Value.String()
	}
	if v, ok := a.lookup("FS_ROOT"); ok && v != "" {
		return v
	}
	return hostFSRoot(a.lookup)
}
