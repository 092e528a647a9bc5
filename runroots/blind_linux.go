package runroots

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func hasCap(c uint) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}

// hidePID returns the hidepid option of the proc mounted at procRoot.
func hidePID(procRoot string) string {
	abs, err := filepath.Abs(procRoot)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	b, err := os.ReadFile(filepath.Join(DefaultProcRoot, "self", "mountinfo"))
	if err != nil {
		return ""
	}
	found := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || g[0] != "proc" || unescapeMount(f[4]) != abs {
			continue
		}
		hide := ""
		for _, o := range strings.Split(g[2], ",") {
			if v, ok := strings.CutPrefix(o, "hidepid="); ok {
				hide = v
			}
		}
		switch hide {
		case "", "0", "off":
			hide = ""
		}
		found = hide // the last mount at that point is the one seen
	}
	return found
}

// unescapeMount undoes mountinfo's escapes (fs/proc_namespace.c
// show_mountinfo escapes " \t\n\\").
func unescapeMount(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// initPIDNamespace is PROC_PID_INIT_INO.
const initPIDNamespace = 0xEFFFFFFC

func inChildPIDNamespace() bool {
	var st unix.Stat_t
	if err := unix.Stat(DefaultProcRoot+"/self/ns/pid", &st); err != nil {
		return false
	}
	return st.Ino != initPIDNamespace
}
