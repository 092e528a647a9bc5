package supervisor

import (
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`[{"service_group": "redis.default", "pkg": {"ident": "core/redis/6.2.6/20210603120000"}}]`,
		`[{"pkg": {"origin": "a", "name": "b", "version": "1", "release": "2"}}]`,
		`[]`, `null`, `{}`, `[{"pkg": null}]`, `[{"pkg": {"ident": "a/b/../c"}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		svcs, err := parse(body)
		if err != nil {
			if !errors.Is(err, ErrGateway) {
				t.Fatalf("error not wrapping ErrGateway: %v", err)
			}
			return
		}
		for _, s := range svcs {
			if _, err := pkgstore.ParseFullIdent(s.Ident.String()); err != nil {
				t.Fatalf("Parse(%q) gave ident %q: %v", body, s.Ident, err)
			}
		}
	})
}
