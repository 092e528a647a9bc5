//go:build windows

package schedule

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is GetExitCodeProcess's code for a process that has not
// exited (STILL_ACTIVE).
const stillActive = 259

// processExists reports whether a process pid runs on this machine:
// OpenProcess with the least access there is, then GetExitCodeProcess (a
// process that has exited stays openable while anyone holds a handle to
// it). Access denied: it exists, another user's or a protected one. Any
// other failure to look says it may exist, so that the claim holds until
// claimTTL rather than being taken over while its scheduler may run it.
func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	switch {
	case errors.Is(err, windows.ERROR_INVALID_PARAMETER):
		return false // no such process
	case err != nil:
		return true
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
