package pkgstore

import (
	"errors"
	"fmt"
)

// errNoSystemDrive is wrapped by DefaultFSRoot's error on Windows when
// neither FS_ROOT nor SYSTEMDRIVE is set.
var errNoSystemDrive = errors.New("neither FS_ROOT nor SYSTEMDRIVE is set")

// DefaultFSRoot is the FS root Habitat uses on an operating system goos
// (runtime.GOOS) given its environment (getenv, as os.Getenv): FS_ROOT when
// set and not empty; else, on Windows, SYSTEMDRIVE followed by a
// backslash (C:\, so the store is C:\hab\pkgs and the Supervisor's state
// C:\hab\sup\default); else "/". As habitat-sh/habitat
// components/core/src/fs.rs FS_ROOT_PATH, which panics ("Windows should
// always have a SYSTEMDRIVE") where this returns an error wrapping
// errNoSystemDrive. An empty variable counts as unset here, where Habitat
// would take an empty FS_ROOT as the working directory: an empty FS root
// never names a store (RequireFSRoot).
func DefaultFSRoot(goos string, getenv func(string) string) (string, error) {
	if r := getenv("FS_ROOT"); r != "" {
		return r, nil
	}
	if goos != "windows" {
		return "/", nil
	}
	drive := getenv("SYSTEMDRIVE")
	if drive == "" {
		return "", fmt.Errorf("the FS root on Windows: %w (Habitat's root is %%SYSTEMDRIVE%%\\, so C:\\hab\\pkgs)", errNoSystemDrive)
	}
	return drive + `\`, nil
}
