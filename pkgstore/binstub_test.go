package pkgstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
)

const stubTarget = `C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin\redis-cli.exe`

func TestParseBinstub(t *testing.T) {
	rendered := pkgstoretest.RenderBinstub(stubTarget, map[string]string{
		"PATH": `C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin;C:\hab\pkgs\core\vc\1\2\bin`, "REDIS_HOME": `C:\x`})
	for _, tc := range []struct {
		name, data      string
		target, command string
		env             []string
	}{
		{"as Habitat renders it, no environment", pkgstoretest.RenderBinstub(stubTarget, nil), stubTarget, stubTarget, nil},
		{"as Habitat renders it, with PATH", rendered, stubTarget, stubTarget,
			[]string{`C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin`, `C:\hab\pkgs\core\vc\1\2\bin`}},
		{"CRLF line endings", strings.ReplaceAll(rendered, "\n", "\r\n"), stubTarget, stubTarget,
			[]string{`C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin`, `C:\hab\pkgs\core\vc\1\2\bin`}},
		{"before Habitat 0.84.0: source", "@echo off\nREM source='C:\\a\\b.exe'\n\"C:\\a\\b.exe\" %*\n", `C:\a\b.exe`, `C:\a\b.exe`, nil},
		{"rem in lower case", "rem target='C:\\a.exe'\n", `C:\a.exe`, "", nil},
		{"target Habitat cannot read back (a quote)", "@echo off\nREM target='C:\\it's.exe'\n\n\"C:\\it's.exe\" %*\n", "", `C:\it's.exe`, nil},
		{"first REM target wins", "REM nothing\nREM target='C:\\1.exe'\nREM target='C:\\2.exe'\n", `C:\1.exe`, "", nil},
		{"not a binstub", "@echo off\necho hello\n", "", "", nil},
		{"empty", "", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := pkgstore.ParseBinstub([]byte(tc.data))
			if b.Target != tc.target || b.Command != tc.command || !slices.Equal(b.Env, tc.env) {
				t.Fatalf("ParseBinstub(%q) = %+v; want target %q, command %q, env %q", tc.data, b, tc.target, tc.command, tc.env)
			}
		})
	}
}

func TestWindowsStorePath(t *testing.T) {
	for _, tc := range []struct {
		name, path, fsRoot, want string
		ok                       bool
	}{
		{"system drive", stubTarget, `C:\`, "core/redis/7.0.0/20210101000000/bin/redis-cli.exe", true},
		{"other drive", `D:\hab\pkgs\core\x\1\2\bin\x.exe`, `C:\`, "core/x/1/2/bin/x.exe", true},
		{"case", `c:\Hab\PKGS\core\x\1\2`, `C:\`, "core/x/1/2", true},
		{"long path prefix", `\\?\C:\hab\pkgs\core\x\1\2\bin\x.exe`, `C:\`, "core/x/1/2/bin/x.exe", true},
		{"slashes", "C:/hab/pkgs/core/x/1/2/bin/x.exe", `C:\`, "core/x/1/2/bin/x.exe", true},
		{"under an FS_ROOT", `E:\roots\one\hab\pkgs\core\x\1\2\bin\x.exe`, `E:\roots\one`, "core/x/1/2/bin/x.exe", true},
		{"under a Linux FS root", `/srv/win/hab/pkgs/core/x/1/2`, "/srv/win", "core/x/1/2", true},
		{"dot-dot out of the store", `C:\hab\pkgs\..\bin\x.exe`, `C:\`, "", false},
		{"outside", `C:\Windows\system32\cmd.exe`, `C:\`, "", false},
		{"the store itself", `C:\hab\pkgs`, `C:\`, "", false},
		{"relative", `hab\pkgs\core\x\1\2`, `C:\`, "core/x/1/2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := pkgstore.WindowsStorePath(tc.path, tc.fsRoot)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("WindowsStorePath(%q, %q) = %q, %v; want %q, %v", tc.path, tc.fsRoot, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzParseBinstub: any bytes parse without panicking, and a binstub
// rendered as Habitat's template renders it gives back its target, both
// as Habitat reads it (the REM line, when the target is a TOML literal
// string Habitat could read) and as the last line runs it.
func FuzzParseBinstub(f *testing.F) {
	f.Add(stubTarget, `C:\hab\pkgs\core\vc\1\2\bin`, []byte(pkgstoretest.RenderBinstub(stubTarget, nil)))
	f.Add(`C:\it's.exe`, "", []byte("REM target=\"x\"\r\n"))
	f.Add("", ";;%PATH%", []byte("SET PATH=;\n\"\" %*"))
	f.Fuzz(func(t *testing.T, target, path string, data []byte) {
		pkgstore.ParseBinstub(data)
		if strings.ContainsAny(target, "\r\n") || strings.ContainsAny(path, "\r\n") {
			return // no line of the template holds a line break
		}
		var env map[string]string
		if path != "" {
			env = map[string]string{"PATH": path}
		}
		b := pkgstore.ParseBinstub([]byte(pkgstoretest.RenderBinstub(target, env)))
		if target != "" && strings.TrimSpace(target) == target && b.Command != target {
			t.Errorf("command %q, want %q", b.Command, target)
		}
		if tomlLiteral(target) && b.Target != target {
			t.Errorf("target %q, want %q", b.Target, target)
		}
		for _, p := range b.Named() {
			if p == "" {
				t.Errorf("Named has an empty path: %+v", b)
			}
		}
	})
}

// tomlLiteral reports whether s can be a TOML literal string ('s'): valid
// UTF-8 without a quote or a control character other than tab.
func tomlLiteral(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\'' || r == 0x7f || (r < 0x20 && r != '\t') {
			return false
		}
	}
	return true
}

// TestScanBinstub: a scan reads the binstubs in a binlink directory as
// the binlinks they are; a batch file naming nothing in the store is none.
func TestScanBinstub(t *testing.T) {
	const r = "core/redis/7.0.0/20210101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: r, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}})
	b.Binstub("hab/bin", "redis-cli", stubTarget, nil).
		Binstub("hab/bin", "redis-gone", `C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin\redis-gone.exe`, nil).
		File("hab/bin/mine.bat", "@echo off\r\necho mine\r\n").
		Binstub("hab/bin", "notepad", `C:\Windows\notepad.exe`, nil)
	inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pkgstore.Binlink{}
	for _, bl := range inv.Binlinks {
		got[bl.Path] = bl
	}
	if len(got) != 2 {
		t.Fatalf("binlinks %+v, want hab/bin/redis-cli.bat and hab/bin/redis-gone.bat", inv.Binlinks)
	}
	if bl := got["hab/bin/redis-cli.bat"]; !bl.Binstub || !bl.InStore || bl.Dangling || bl.Release.String() != r || bl.Target != stubTarget {
		t.Errorf("redis-cli.bat: %+v", bl)
	}
	if bl := got["hab/bin/redis-gone.bat"]; !bl.Binstub || !bl.Dangling || bl.Release.String() != r || !strings.Contains(bl.Why, "redis-gone.exe") {
		t.Errorf("redis-gone.bat: %+v, want dangling (no such file in %s)", bl, r)
	}
}
