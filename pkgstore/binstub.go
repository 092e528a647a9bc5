package pkgstore

import (
	"bytes"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// binstubExt is the extension of the binstubs `hab pkg binlink` writes on
// Windows, where a binlink is a batch file, not a symlink.
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
//
// one SET line (then an empty line) per variable of the release's
// runtime environment, PATH's value followed by ";%PATH%".
type Binstub struct {
	// Target is the target Habitat reads back (binlink.rs
	// Binlink::from_file): the first REM line whose rest is TOML with a
	// string "target" (or "source", before Habitat 0.84.0). Empty when no
	// line is.
	Target string
	// Command is the program the last line runs ("PROGRAM" %*), which is
	// the target when Habitat wrote the file; empty when no such line.
	Command string
	// Env are the directories of each SET PATH=... line, without %PATH%,
	// in order: where the command finds the programs it runs.
	Env []string
}

// Named returns every path the binstub names (Target, Command, then Env),
// each once, in that order: what the binstub runs or needs.
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

// remMarker starts the comment line Habitat writes the target on
// (binlink.rs COMMENT_MARKER).
const remMarker = "REM"

// ParseBinstub reads a binstub as Habitat's template writes it (see
// Binstub). It never fails: a file that is no binstub gives the zero
// Binstub, and lines it does not know are skipped. Lines end at "\n", a
// "\r" before it dropped (a template checked out with CRLF endings).
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

// tomlTarget is Habitat's get_target_from_toml: the string "target", else
// "source", of rest read as TOML; "" when it is neither.
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

// commandLine reads the template's last line, "PROGRAM" %*.
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

// WindowsStorePath returns p, a path a binstub names (C:\hab\pkgs\..., or
// FSROOT\hab\pkgs\... under an FS_ROOT), relative to the store with
// slashes (ORIGIN/NAME/VERSION/RELEASE/...), and whether p is in the
// store. fsRoot is the FS root hab-gc reads the store under; paths are
// compared without regard to case, as NTFS names are, and with either
// separator. The \\?\ prefix of a long path is dropped first.
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

// cleanSlash cleans a slash-separated path, rooted at "/" when it is not
// already (a Windows path with no drive, or one after it).
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
