package pkgstore

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// stillActive is GetExitCodeProcess's code of a process still running.
const stillActive = 259

// alive returns nil when process pid is running, else an error saying it
// is not (or cannot be told).
func alive(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("names process %d, which cannot be opened (%v)", pid, err)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return fmt.Errorf("names process %d, whose state cannot be read (%v)", pid, err)
	}
	if code != stillActive {
		return fmt.Errorf("names process %d, which has exited", pid)
	}
	return nil
}
