package docs_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/hab-gc.txt from the packages' exported API")

// apiListing is the checked-in listing of the module's public API.
const apiListing = "../api/hab-gc.txt"

// TestAPIListing keeps api/hab-gc.txt, the listing of every exported
// identifier of every public package (not internal/, not cmd/), equal to
// the code: a change to the public API changes the listing in the same
// commit, so each one is deliberate and reviewed as such. It fails with
// the lines that differ; `go test ./docs -run TestAPIListing -update`
// rewrites the listing.
func TestAPIListing(t *testing.T) {
	got, err := renderAPI("..")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(apiListing, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(apiListing)
	if err != nil {
		t.Fatalf("%v (go test ./docs -run TestAPIListing -update writes it)", err)
	}
	if d := lineDiff(string(want), got); d != "" {
		t.Errorf("the public API differs from %s (- listed, + in the code); if the change is meant, run\n"+
			"go test ./docs -run TestAPIListing -update and commit the listing with it:\n%s", apiListing, d)
	}
}

// TestAPIListingSeesEachKind: the listing renders a function, a method, a
// struct's exported fields (not its unexported ones), a constant with its
// value, a variable without its initializer's arguments, and no internal
// package. A listing that missed a kind of identifier would not guard it.
func TestAPIListingSeesEachKind(t *testing.T) {
	got, err := renderAPI("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\npackage github.com/hab-gc/hab-gc/retention\n",
		"\nfunc PlanStore(",
		"\nfunc (p *Plan) Apply(",
		"\ntype RemovalOutcome struct {\n\tIdent pkgstore.Ident\n",
		"\nconst CodeLatest Code = \"latest\"\n",
		"\nvar ErrEmptyPolicy = errors.New(...)\n",
		"\npackage github.com/hab-gc/hab-gc/pkgstore/pkgstoretest\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the listing lacks %q", want)
		}
	}
	for _, bad := range []string{"/internal/", "/cmd/", "\tinventory", "hook func"} {
		if strings.Contains(got, bad) {
			t.Errorf("the listing has %q, which is not public API", bad)
		}
	}
}

// renderAPI lists the exported API of every public package under root,
// as built for linux/amd64 (whatever the machine), in import path order.
func renderAPI(root string) (string, error) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	modPath := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", false
	var dirs []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") ||
			n == "internal" || n == "testdata" || n == "cmd") {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return "", err
	}
	var out strings.Builder
	out.WriteString("# The public API of " + modPath + ", as built for linux/amd64: every exported\n" +
		"# identifier of every package but internal/ and cmd/. Written by\n" +
		"# go test ./docs -run TestAPIListing -update; see docs/library.md.\n")
	for _, dir := range dirs {
		bp, err := ctx.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			continue
		}
		if err != nil {
			return "", err
		}
		if bp.Name == "main" {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return "", err
		}
		path := modPath
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return "", err
			}
			files = append(files, f)
		}
		pkg, err := doc.NewFromFiles(fset, files, path)
		if err != nil {
			return "", err
		}
		out.WriteString("\npackage " + path + "\n")
		if err := renderPackage(&out, fset, pkg); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

func renderPackage(out *strings.Builder, fset *token.FileSet, pkg *doc.Package) error {
	w := &apiWriter{out: out, fset: fset}
	w.values(pkg.Consts)
	w.values(pkg.Vars)
	for _, f := range pkg.Funcs {
		w.fn(f)
	}
	for _, typ := range pkg.Types {
		w.typ(typ.Decl.Specs[0].(*ast.TypeSpec))
		w.values(typ.Consts)
		w.values(typ.Vars)
		for _, f := range typ.Funcs {
			w.fn(f)
		}
		for _, m := range typ.Methods {
			w.fn(m)
		}
	}
	return w.err
}

type apiWriter struct {
	out  *strings.Builder
	fset *token.FileSet
	err  error
}

// node prints n without comments on one line, after prefix: line breaks
// in the source (a long parameter list) and the alignment of neighbours
// do not change the listing.
func (w *apiWriter) node(n any, prefix string) {
	w.out.WriteString(prefix + w.text(n) + "\n")
}

var lineBreak = regexp.MustCompile(`\s*\n\s*`)

func (w *apiWriter) text(n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, w.fset, n); err != nil && w.err == nil {
		w.err = err
	}
	s := lineBreak.ReplaceAllString(b.String(), " ")
	return strings.NewReplacer("( ", "(", ", )", ")", " )", ")").Replace(s)
}

// typ prints a type declaration; a struct or interface with one line per
// exported field or method, in the order of the source.
func (w *apiWriter) typ(spec *ast.TypeSpec) {
	var fields *ast.FieldList
	var kind string
	var incomplete bool
	switch t := spec.Type.(type) {
	case *ast.StructType:
		fields, kind, incomplete = t.Fields, "struct", t.Incomplete
	case *ast.InterfaceType:
		fields, kind, incomplete = t.Methods, "interface", t.Incomplete
	default:
		w.node(spec, "type ")
		return
	}
	head := spec.Name.Name
	if spec.TypeParams != nil {
		head += "[" + w.text(spec.TypeParams) + "]"
	}
	w.out.WriteString("type " + head + " " + kind + " {\n")
	for _, f := range fields.List {
		line := w.text(f.Type)
		if ft, ok := f.Type.(*ast.FuncType); ok && kind == "interface" {
			line = strings.TrimPrefix(w.text(ft), "func")
		}
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		if len(names) > 0 {
			sep := " "
			if kind == "interface" {
				sep = ""
			}
			line = strings.Join(names, ", ") + sep + line
		}
		if f.Tag != nil {
			line += " " + f.Tag.Value
		}
		w.out.WriteString("\t" + line + "\n")
	}
	if incomplete {
		w.out.WriteString("\t// contains filtered or unexported " + map[string]string{"struct": "fields", "interface": "methods"}[kind] + "\n")
	}
	w.out.WriteString("}\n")
}

// values prints one line per exported name of const and var groups: its
// type and, for a constant, its value as written, with iota written as
// the number it is (an implicit repetition written out); a variable's
// initializer is shown by its shape (errors.New(...)), not its arguments.
func (w *apiWriter) values(vals []*doc.Value) {
	for _, v := range vals {
		var typ ast.Expr
		var vals []ast.Expr
		for i, s := range v.Decl.Specs {
			vs := s.(*ast.ValueSpec)
			implicit := v.Decl.Tok == token.CONST && vs.Type == nil && len(vs.Values) == 0
			if !implicit {
				typ, vals = vs.Type, vs.Values
			}
			for j, name := range vs.Names {
				if !name.IsExported() {
					continue
				}
				line := &ast.ValueSpec{Names: []*ast.Ident{name}, Type: typ}
				if j < len(vals) {
					val := vals[j]
					if v.Decl.Tok == token.VAR {
						val = shape(val)
					} else if text := exprText(w.fset, val); iotaWord.MatchString(text) {
						val = &ast.BasicLit{Kind: token.INT, Value: iotaWord.ReplaceAllString(text, fmt.Sprint(i))}
					}
					line.Values = []ast.Expr{val}
				}
				w.node(&ast.GenDecl{Tok: v.Decl.Tok, Specs: []ast.Spec{line}}, "")
			}
		}
	}
}

var iotaWord = regexp.MustCompile(`\biota\b`)

func exprText(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, e)
	return b.String()
}

// shape is a variable's initializer without what only its value holds: a
// call's arguments, a composite literal's elements, a function's body.
func shape(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.CallExpr:
		return &ast.CallExpr{Fun: e.Fun, Args: []ast.Expr{ast.NewIdent("...")}}
	case *ast.CompositeLit:
		return &ast.CompositeLit{Type: e.Type, Elts: []ast.Expr{ast.NewIdent("...")}}
	case *ast.FuncLit:
		return &ast.FuncLit{Type: e.Type, Body: &ast.BlockStmt{}}
	case *ast.UnaryExpr:
		return &ast.UnaryExpr{Op: e.Op, X: shape(e.X)}
	}
	return e
}

// fn prints a function or method's signature.
func (w *apiWriter) fn(f *doc.Func) {
	d := *f.Decl
	d.Doc, d.Body = nil, nil
	w.node(&d, "")
}

// lineDiff is the lines that differ between want and got, as a unified
// diff without context ("" when equal), at most 200 lines.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Longest common subsequence, by dynamic programming from the ends.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var d []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			d = append(d, fmt.Sprintf("-%d: %s", i+1, a[i]))
			i++
		default:
			d = append(d, fmt.Sprintf("+%d: %s", j+1, b[j]))
			j++
		}
	}
	if len(d) > 200 {
		d = append(slices.Clip(d[:200]), fmt.Sprintf("... and %d more", len(d)-200))
	}
	return strings.Join(d, "\n")
}
