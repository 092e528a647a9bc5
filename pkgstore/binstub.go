package pkgstore

import (
	"bytes"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

const binstubExt = ".bat"

// Binstub is what a Windows binstub names, as ParseBinstub reads it.
//
// Habitat writes one from habitat-sh/habitat
// components/hab/static/template_binstub.bat (command/pkg/binlink.rs
// stub_template):
//
//	@echo off
//	REM target='C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin\redis-cli.exe'
//	SET PATH=C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin;%PATH%
//
//	"C:\hab\pkgs\core\redis\7.0.0\20210101000000\bin\redis-cli.exe" %*
type Binstub struct {
	// Target is what Habitat reads back (binlink.rs Binlink::from_file):
	// "target" (or "source") of the first REM line's TOML.
	Target  string
	Command string   // what the last line runs ("PROGRAM" %*)
	Env     []string // the SET PATH=... directories, without %PATH%
}

// Named returns every path the binstub names, each once.
func (b Binstub) Named() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range append([]string{b.Target, b.Command}, b.Env...) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// remMarker is binlink.rs COMMENT_MARKER.
const remMarker = "REM"

// ParseBinstub reads a binstub as Habitat's template writes it; lines it
// does not know are skipped.
func ParseBinstub(data []byte) Binstub {
	var b Binstub
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSuffix(string(raw), "\r")
		if b.Target == "" && len(line) >= len(remMarker) && strings.EqualFold(line[:len(remMarker)], remMarker) {
			// As Habitat: ln.to_uppercase().starts_with("REM"), then the
			// rest of the line parsed as a TOML table.
			b.Target = tomlTarget(line[len(remMarker):])
			continue
		}
		trimmed := strings.TrimSpace(line)
		if len(trimmed) > 4 && strings.EqualFold(trimmed[:4], "SET ") {
			k, v, ok := strings.Cut(strings.TrimSpace(trimmed[4:]), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "PATH") {
				for _, d := range strings.Split(v, ";") {
					if d = strings.TrimSpace(d); d != "" && !strings.EqualFold(d, "%PATH%") {
						b.Env = append(b.Env, d)
					}
				}
			}
			continue
		}
		if cmd, ok := commandLine(trimmed); ok {
			b.Command = cmd
		}
	}
	return b
}

// tomlTarget is Habitat's get_target_from_toml.
func tomlTarget(rest string) string {
	var table map[string]any
	if err := toml.Unmarshal([]byte(rest), &table); err != nil {
		return ""
	}
	for _, key := range []string{"target", "source"} {
		if s, ok := table[key].(string); ok {
			return s
		}
	}
	return ""
}

func commandLine(line string) (string, bool) {
	rest, ok := strings.CutSuffix(line, "%*")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 3 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", false
	}
	return rest[1 : len(rest)-1], true
}

// WindowsStorePath returns p, a path a binstub names, relative to the
// store under fsRoot with slashes, and whether it is in the store
// (compared without regard to case or separator, any \\?\ dropped).
func WindowsStorePath(p, fsRoot string) (string, bool) {
	norm := func(s string) string {
		s = strings.ReplaceAll(s, `\`, "/")
		s = strings.TrimPrefix(s, "//?/")
		return s
	}
	t := norm(p)
	// A drive letter: C:/hab/pkgs/... is /hab/pkgs/... on drive C.
	if len(t) >= 2 && t[1] == ':' && isLetter(t[0]) {
		t = t[2:]
	}
	t = cleanSlash(t)
	store := "/" + StoreDir + "/"
	if len(t) > len(store) && strings.EqualFold(t[:len(store)], store) {
		return t[len(store):], true
	}
	host := cleanSlash(norm(fsRoot)) + "/" + StoreDir + "/"
	if host != "/"+StoreDir+"/" {
		full := cleanSlash(norm(p))
		if len(full) > len(host) && strings.EqualFold(full[:len(host)], host) {
			return full[len(host):], true
		}
	}
	return "", false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func cleanSlash(s string) string {
	if s == "" {
		return "/"
	}
	var parts []string
	for _, c := range strings.Split(s, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, c)
		}
	}
	return "/" + strings.Join(parts, "/")
}
