package retention_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/retention"
)

// TestSupervisorPick: a spec protects every release the Supervisor may run
// for it, exactly as Habitat picks (PackageInstall::load folds the listing
// with PackageIdent::partial_cmp, keeping the first of equals, and the
// listing comes in directory order), and names it with the right code.
func TestSupervisorPick(t *testing.T) {
	type want struct {
		ident string
		code  retention.Code // "" when no service reason may be given
	}
	tests := []struct {
		name  string
		rels  []string
		wants []want
	}{
		{"an order Habitat cannot keep consistent: any of three", []string{
			"o/app/2.0/20200101000000", "o/app/master/20200101000000", "o/app/v1.0/20200101000000",
		}, []want{
			{"o/app/2.0/20200101000000", retention.CodeServiceMaybe},
			{"o/app/master/20200101000000", retention.CodeServiceMaybe},
			{"o/app/v1.0/20200101000000", retention.CodeServiceMaybe},
		}},
		{"the same release spelled two ways: the first listed", []string{
			"o/app/1.0.0/20200101000000", "o/app/1.0/20200101000000",
		}, []want{
			{"o/app/1.0.0/20200101000000", retention.CodeServiceMaybe},
			{"o/app/1.0/20200101000000", retention.CodeServiceMaybe},
		}},
		{"master against 1.0: always master", []string{
			"o/app/1.0/20200101000000", "o/app/master/20200101000000",
		}, []want{
			{"o/app/master/20200101000000", retention.CodeService},
			{"o/app/1.0/20200101000000", ""},
		}},
		{"an ordinary newest", []string{
			"o/app/1.0/20200101000000", "o/app/1.1/20190101000000",
		}, []want{
			{"o/app/1.1/20190101000000", retention.CodeService},
			{"o/app/1.0/20200101000000", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := storetest.New(t)
			for _, r := range tt.rels {
				oldPkg(b, r)
			}
			b.Spec("app", "o/app")
			p := plan(t, b, retention.Policy{KeepLatest: retention.KeepNone})
			for _, w := range tt.wants {
				d := decision(t, p, w.ident)
				switch {
				case w.code == "":
					if hasCode(d, retention.CodeService, "") || hasCode(d, retention.CodeServiceMaybe, "") {
						t.Errorf("%s: the Supervisor never runs it, yet: %v", w.ident, d.Reasons)
					}
				case d.Action != retention.Keep || !hasCode(d, w.code, "loaded service app"):
					t.Errorf("%s: %s %v, want keep with %s", w.ident, d.Action, d.Reasons, w.code)
				case w.code == retention.CodeService && hasCode(d, retention.CodeServiceMaybe, ""):
					t.Errorf("%s: also called ambiguous: %v", w.ident, d.Reasons)
				}
			}
		})
	}
}
