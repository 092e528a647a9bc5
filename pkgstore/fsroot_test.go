package pkgstore

import (
	"errors"
	"testing"
)

func TestDefaultFSRoot(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		env        map[string]string
		want       string
		err        error
	}{
		{"linux", "linux", nil, "/", nil},
		{"linux FS_ROOT", "linux", map[string]string{"FS_ROOT": "/mnt/x"}, "/mnt/x", nil},
		{"linux ignores SYSTEMDRIVE", "linux", map[string]string{"SYSTEMDRIVE": "C:"}, "/", nil},
		{"darwin", "darwin", nil, "/", nil},
		{"windows SYSTEMDRIVE", "windows", map[string]string{"SYSTEMDRIVE": "C:"}, `C:\`, nil},
		{"windows other drive", "windows", map[string]string{"SYSTEMDRIVE": "D:"}, `D:\`, nil},
		{"windows FS_ROOT first", "windows", map[string]string{"FS_ROOT": `E:\roots\one`, "SYSTEMDRIVE": "C:"}, `E:\roots\one`, nil},
		{"windows empty FS_ROOT is unset", "windows", map[string]string{"FS_ROOT": "", "SYSTEMDRIVE": "C:"}, `C:\`, nil},
		{"windows neither", "windows", nil, "", errNoSystemDrive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultFSRoot(tc.goos, func(k string) string { return tc.env[k] })
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("DefaultFSRoot(%s, %v) = %q, %v; want %q, %v", tc.goos, tc.env, got, err, tc.want, tc.err)
			}
		})
	}
}
