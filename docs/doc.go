// Package docs holds hab-gc's long documentation: one markdown page per
// topic (configuration, safety model, runtime roots, scheduling, ...),
// embedded in the binary so that the pages in the repository, `hab-gc help
// TOPIC` and the man pages `hab-gc docs` writes come from one source and
// cannot drift apart.
//
// A page's name is its file name without ".md" (`safety` for safety.md);
// its title is its first line, a "# " heading. The README is the map into
// these pages.
//
//	t, ok := docs.Lookup("safety")
//	if ok {
//		fmt.Print(t.Text()) // plain text, for a terminal
//	}
package docs
