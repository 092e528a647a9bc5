// Package docs embeds hab-gc's long documentation, one markdown page per
// topic, so that the repository's pages, `hab-gc help TOPIC` and the man
// pages `hab-gc docs` writes come from one source. A page's name is its
// file name without ".md"; its title is its first line, a "# " heading.
//
//	t, ok := docs.Lookup("safety")
//	if ok {
//		fmt.Print(t.Text()) // plain text, for a terminal
//	}
package docs
