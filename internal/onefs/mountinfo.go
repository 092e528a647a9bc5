package onefs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// ParseMountInfo returns mountinfo's fifth field, octal escapes undone.
func ParseMountInfo(data []byte) []string {
	var out []string
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		fields := bytes.Fields(line)
		if len(fields) < 5 {
			continue
		}
		out = append(out, unescapeOctal(string(fields[4])))
	}
	return out
}

func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] <= '3' && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')
			b.WriteByte(v)
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// Under returns the mounts strictly inside dir (absolute, no symlinks),
// relative to it.
func Under(dir string, mounts []string) []string {
	dir = filepath.Clean(dir)
	var out []string
	for _, m := range mounts {
		rel, err := filepath.Rel(dir, filepath.Clean(m))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// MountsUnder is Under of this process's mount namespace.
func MountsUnder(dir string) ([]string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return Under(real, ParseMountInfo(data)), nil
}
