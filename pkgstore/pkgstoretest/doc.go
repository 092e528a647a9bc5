// Package pkgstoretest writes Habitat package stores for tests and
// examples, as net/http/httptest serves HTTP for them: releases (IDENT,
// TARGET, DEPS, TDEPS computed as Habitat writes them, MANIFEST, hooks),
// loaded service specs, binlinks, and odd files. It needs no testing.TB:
// a Store records its first error, which Err returns, and does nothing
// after it, so a chain of calls is checked once.
//
//	s, err := pkgstoretest.New(dir)
//	s.Pkg("core/glibc/2.35/20220101000000").
//		Pkg("core/redis/7.0.0/20220201000000", "core/glibc/2.35/20220101000000").
//		Spec("redis", "core/redis")
//	if err := s.Err(); err != nil { ... }
//
// Everything is written under Root, never elsewhere: relative paths only.
package pkgstoretest
