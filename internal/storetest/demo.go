package storetest

import "strings"

// Demo builds the small, realistic store shipped in testdata/demo: a few
// packages with several releases each, two loaded services (one pinned to
// a version), a binlink into an old release (a binstub when b.Target is a
// Windows target), and Habitat itself.
func Demo(b *Builder) {
	const (
		glibc33   = "core/glibc/2.33/20210301000000"
		glibc34   = "core/glibc/2.34/20211001000000"
		glibc35   = "core/glibc/2.35/20220401000000"
		ssl102    = "core/openssl/1.0.2k/20200601000000"
		ssl111k   = "core/openssl/1.1.1k/20210401000000"
		ssl111    = "core/openssl/1.1.1/20220501000000"
		redis501  = "core/redis/5.0.1/20210401000000"
		redis625  = "core/redis/6.2.5/20211101000000"
		redis626a = "core/redis/6.2.6/20220501000000"
		redis626b = "core/redis/6.2.6/20220601000000"
		bb131     = "core/busybox-static/1.31.0/20200101000000"
		bb134     = "core/busybox-static/1.34.1/20220101000000"
		web10     = "acme/webapp/1.0.0/20210501000000"
		web11     = "acme/webapp/1.1.0/20211201000000"
		web20     = "acme/webapp/2.0.0/20220701000000"
	)
	files := func(extra map[string]string) map[string]string {
		m := map[string]string{"bin/placeholder": "#!/bin/sh\n"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	b.Add(
		Release{Ident: glibc33, Files: files(nil)},
		Release{Ident: glibc34, Files: files(nil)},
		Release{Ident: glibc35, Files: files(nil)},
	)
	b.Add(
		Release{Ident: ssl102, Deps: []string{glibc33}, Files: files(nil)},
		Release{Ident: ssl111k, Deps: []string{glibc34}, Files: files(nil)},
		Release{Ident: ssl111, Deps: []string{glibc35}, Files: files(nil)},
	)
	b.Add(
		Release{Ident: redis501, Deps: []string{ssl102, glibc33}, Files: files(nil)},
		Release{Ident: redis625, Deps: []string{ssl111k, glibc34}, Files: files(nil)},
		Release{Ident: redis626a, Deps: []string{ssl111, glibc35}, Files: files(nil)},
		Release{Ident: redis626b, Deps: []string{ssl111, glibc35}, Files: files(nil)},
		Release{Ident: bb131, Files: files(map[string]string{"bin/busybox": "busybox\n"})},
		Release{Ident: bb134, Files: files(map[string]string{"bin/busybox": "busybox\n"})},
		Release{Ident: "chef/hab/1.6.0/20210101000000", Files: files(nil)},
		Release{Ident: "chef/hab/1.6.1/20220101000000", Files: files(nil)},
	)
	b.Add(
		Release{Ident: web10, Deps: []string{redis501, ssl102}, Files: files(nil)},
		Release{Ident: web11, Deps: []string{redis625, ssl111k}, Files: files(nil)},
		Release{Ident: web20, Deps: []string{redis626b, ssl111}, Files: files(nil)},
	)
	b.Spec("redis", "core/redis")
	b.Spec("webapp", "acme/webapp/1.1.0")
	if strings.HasSuffix(b.Target, "-windows") {
		// A store laid out for Windows: `hab pkg binlink` writes a
		// binstub in hab\bin there, not a symlink.
		b.Binstub("hab/bin", "busybox", `C:\hab\pkgs\`+strings.ReplaceAll(bb131, "/", `\`)+`\bin\busybox`, nil)
		return
	}
	b.Binlink("bin", "busybox", "/hab/pkgs/"+bb131+"/bin/busybox")
}
