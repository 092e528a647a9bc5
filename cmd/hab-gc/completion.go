package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// identCompletion completes up to max IDENT arguments (0: any) one level
// at a time from directory listings alone (safeio.ReadDir), as quick as
// ls; hidden names, non-directories, "." and ".." are left out.
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

// completionFSRoot is --fs-root, FS_ROOT or this machine's; the config
// file is not read.
func (a *app) completionFSRoot(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("fs-root"); f != nil && f.Changed && f.Value.String() != "" {
		return f.Value.String()
	}
	if v, ok := a.lookup("FS_ROOT"); ok && v != "" {
		return v
	}
	return hostFSRoot(a.lookup)
}
