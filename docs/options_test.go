package docs_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/artifactcache"
	"github.com/hab-gc/hab-gc/binlink"
	"github.com/hab-gc/hab-gc/docs"
	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
	"github.com/hab-gc/hab-gc/supervisor"
	"github.com/hab-gc/hab-gc/watch"
)

// optionStructs are the option structs of the library, each as a pointer
// to a value that passes its Validate (where it has one): the field under
// test is changed on a copy. A new struct found in the source
// (optionStructSources) fails TestEveryOptionHasARow until it is here,
// and every field of each until the table has its row.
var optionStructs = map[string]any{
	"retention.Policy":       &retention.Policy{KeepLatest: 1},
	"retention.ApplyOptions": &retention.ApplyOptions{},
	"pkgstore.Options":       &pkgstore.Options{},
	"artifactcache.Options":  &artifactcache.Options{},
	"prune.Options":          &prune.Options{Policy: retention.Policy{KeepLatest: 1}},
	"pressure.Limits":        &pressure.Limits{},
	"watch.Options":          &watch.Options{Policy: retention.Policy{KeepLatest: 1}},
	"schedule.Scheduler":     &schedule.Scheduler{},
	"schedule.Params":        &schedule.Params{KeepLatest: 1},
	"supervisor.Client":      &supervisor.Client{},
	"binlink.RepairOptions":  &binlink.RepairOptions{},
	"binlink.Options":        &binlink.Options{},
	"hart.Limits":            &hart.Limits{},
	"history.Policy":         &history.Policy{},
}

// records are option-shaped structs that only record what was given (a
// journal's copy of a run's policy): no Validate, no defaults to check.
var records = map[string]bool{"history.Policy": true}

// extraOptionStructs are structs of options not named so.
var extraOptionStructs = map[string]bool{"schedule.Scheduler": true, "schedule.Params": true, "supervisor.Client": true}

// sentinels are the named "none" values a row may give, by name.
var sentinels = map[string]int64{
	"retention.KeepNone":   retention.KeepNone,
	"retention.NoMinAge":   int64(retention.NoMinAge),
	"retention.NoLockWait": int64(retention.NoLockWait),
	"retention.NoSettle":   int64(retention.NoSettle),
}

// librarySource is what the library's non-test source declares: the
// option structs' exported fields, and each package's exported names.
type librarySource struct {
	fields   map[string][]string        // "pkg.Type" -> exported field names
	exported map[string]map[string]bool // "pkg" -> exported top-level names
}

// readLibrary parses the library packages (everything but cmd, internal,
// docs and testdata) for exported structs named *Options, *Policy,
// *Config or *Limits, and extraOptionStructs.
func readLibrary(t *testing.T, root string) librarySource {
	t.Helper()
	src := librarySource{fields: map[string][]string{}, exported: map[string]map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			top := strings.Split(filepath.ToSlash(rel), "/")[0]
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || slices.Contains([]string{"cmd", "internal", "docs"}, top)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		if src.exported[pkg] == nil {
			src.exported[pkg] = map[string]bool{}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					src.exported[pkg][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch s := sp.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								src.exported[pkg][n.Name] = true
							}
						}
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						src.exported[pkg][s.Name.Name] = true
						st, ok := s.Type.(*ast.StructType)
						name := pkg + "." + s.Name.Name
						if !ok || !(extraOptionStructs[name] || hasOptionSuffix(s.Name.Name)) {
							continue
						}
						var fields []string
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								if n.IsExported() {
									fields = append(fields, n.Name)
								}
							}
						}
						src.fields[name] = fields
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func hasOptionSuffix(name string) bool {
	for _, s := range []string{"Options", "Policy", "Config", "Limits"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// optionRow is one row of docs/library.md's table of zero and negative
// values.
type optionRow struct{ zero, negative string }

var rowRE = regexp.MustCompile("^\\| `([a-z]+\\.[A-Z]\\w*\\.[A-Z]\\w*)` \\| (.*) \\| (.*) \\|$")

// optionRows parses the table under "## Zero and negative values".
func optionRows(t *testing.T) map[string]optionRow {
	t.Helper()
	page, ok := docs.Lookup("library")
	if !ok {
		t.Fatal("no library page")
	}
	_, section, ok := strings.Cut(page.Markdown, "\n## Zero and negative values\n")
	if !ok {
		t.Fatal(`library.md has no "Zero and negative values" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]optionRow{}
	for _, l := range strings.Split(section, "\n") {
		m := rowRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("row %s is given twice", m[1])
		}
		rows[m[1]] = optionRow{zero: m[2], negative: m[3]}
	}
	if len(rows) == 0 {
		t.Fatal("the table of zero and negative values has no rows")
	}
	return rows
}

// TestEveryOptionHasARow: every exported field of every
// option struct of the library has a row in docs/library.md's table of
// zero and negative values, every row names a field that exists, and each
// name a row gives in backquotes (pkg.Name) is declared by that package.
func TestEveryOptionHasARow(t *testing.T) {
	src := readLibrary(t, "..")
	rows := optionRows(t)
	for name := range src.fields {
		if _, ok := optionStructs[name]; !ok {
			t.Errorf("%s is an option struct of the library: add it to optionStructs (and its fields to the table)", name)
		}
	}
	for name := range optionStructs {
		if _, ok := src.fields[name]; !ok {
			t.Errorf("optionStructs has %s, which the library's source does not declare as an option struct", name)
		}
	}
	want := map[string]bool{}
	for name, fields := range src.fields {
		for _, f := range fields {
			want[name+"."+f] = true
			if _, ok := rows[name+"."+f]; !ok {
				t.Errorf("docs/library.md has no row for %s.%s: say what its zero and a negative value mean", name, f)
			}
		}
	}
	named := regexp.MustCompile("`([a-z]+)\\.([A-Z]\\w*)")
	for field, row := range rows {
		if !want[field] {
			t.Errorf("the row %s names no field of an option struct", field)
		}
		for _, m := range named.FindAllStringSubmatch(row.zero+" "+row.negative, -1) {
			if pkg, ok := src.exported[m[1]]; ok && !pkg[m[2]] {
				t.Errorf("the row %s names %s.%s, which package %s does not declare", field, m[1], m[2], m[1])
			}
		}
	}
}

// TestOptionRowsHold checks each number's row against its struct's
// Validate: a zero the row says is refused fails Validate, any other zero
// passes; a named none the row gives passes; "another: refused" or
// "refused" makes -5 (or -5s) fail. Every numeric option of a struct that
// is not a record must say how a negative value is taken, and its struct
// must have a Validate.
func TestOptionRowsHold(t *testing.T) {
	rows := optionRows(t)
	durationType := reflect.TypeFor[time.Duration]()
	for name, base := range optionStructs {
		bv := reflect.ValueOf(base).Elem()
		for i := range bv.NumField() {
			sf := bv.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			numeric := sf.Type == durationType
			switch sf.Type.Kind() {
			case reflect.Int, reflect.Int64, reflect.Float64:
				numeric = true
			}
			row, ok := rows[name+"."+sf.Name]
			if !numeric || !ok || records[name] {
				continue
			}
			t.Run(name+"."+sf.Name, func(t *testing.T) {
				validate := func(v int64) error {
					p := reflect.New(bv.Type())
					p.Elem().Set(bv)
					f := p.Elem().Field(i)
					if f.Kind() == reflect.Float64 {
						f.SetFloat(float64(v))
					} else {
						f.SetInt(v)
					}
					m := p.MethodByName("Validate")
					if !m.IsValid() {
						t.Fatalf("%s has a number but no Validate: a negative value must be refused", name)
					}
					err, _ := m.Call(nil)[0].Interface().(error)
					return err
				}
				refusedZero := strings.HasPrefix(row.zero, "refused")
				if err := validate(0); (err != nil) != refusedZero {
					t.Errorf("zero: Validate says %v; the row says %q", err, row.zero)
				}
				gaveNone, refusedNegative := false, strings.Contains(row.negative, "refused")
				for sname, v := range sentinels {
					if strings.Contains(row.negative, "`"+sname+"`") {
						gaveNone = true
						if err := validate(v); err != nil {
							t.Errorf("%s: Validate refuses it (%v); the row says %q", sname, err, row.negative)
						}
					}
				}
				if !gaveNone && !refusedNegative {
					t.Fatalf("the row says %q: a number's negative value is a named none or refused", row.negative)
				}
				other := int64(-5)
				if sf.Type == durationType {
					other = int64(-5 * time.Second)
				}
				if err := validate(other); refusedNegative && err == nil {
					t.Errorf("%d: Validate accepts it; the row says %q", other, row.negative)
				} else if !refusedNegative && err != nil {
					t.Errorf("%d: Validate refuses it (%v); the row says %q", other, err, row.negative)
				}
			})
		}
	}
	// What the rows say of the defaults that resolve through exported
	// functions.
	if retention.LockWait(0) != retention.DefaultLockTimeout || retention.LockWait(retention.NoLockWait) != 0 {
		t.Error("retention.LockWait disagrees with the LockTimeout rows")
	}
	if lo, hi, err := (pressure.Limits{}).Resolve(1 << 30); err != nil || lo != 0 || hi != 0 {
		t.Errorf("the zero pressure.Limits: %d, %d, %v; the row says never under pressure", lo, hi, err)
	}
	if _, _, err := (pressure.Limits{MinFree: pressure.Size{Bytes: -5}}).Resolve(1 << 30); !errors.Is(err, pressure.ErrBadLimits) {
		t.Errorf("a negative MinFree: %v, want ErrBadLimits as the row says", err)
	}
}
