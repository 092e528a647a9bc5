package schedule

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

type unitFile struct {
	Name, Content string
}

// unitMarker starts every unit file systemdUnits writes: a re-export
// removes the files that carry it and belong to no job any more, and
// never touches a file without it.
const unitMarker = "# Written by hab-gc schedule export: removed by a later export when its job is gone."

// Invocation is how an exported service runs the daemon: the executable,
// its arguments before --job, and environment variables (KEY=VALUE).
type Invocation struct {
	Exe  string
	Args []string
	Env  []string
}

func unitBase(j Job) string { return fmt.Sprintf("hab-gc-%s-%s", j.Type, j.Key) }

// systemdUnits returns a timer and a service unit for a job, values
// quoted and escaped as systemd reads them.
func systemdUnits(j Job, inv Invocation, loc *time.Location) ([]unitFile, error) {
	cal, err := onCalendar(j.Cron, j.Spec.Zone(loc))
	if err != nil {
		return nil, fmt.Errorf("job %s (%s): %w", j.Key, j.Spec.Raw, err)
	}
	base := unitBase(j)
	desc := escapeSpecifiers(fmt.Sprintf("hab-gc %s of %s (%s, owner %s)", j.Type, j.Store, j.Spec.Raw, j.Owner))
	desc = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, desc)
	timer := fmt.Sprintf(`%s
[Unit]
Description=%s

[Timer]
OnCalendar=%s
Persistent=true
Unit=%s.service

[Install]
WantedBy=timers.target
`, unitMarker, desc, cal, base)
	// systemd expands variables in the arguments, not in the executable.
	words := []string{quoteWord(escapeSpecifiers(inv.Exe))}
	for _, a := range append(slices.Clone(inv.Args), "--job", j.Key) {
		words = append(words, execQuote(a))
	}
	var env strings.Builder
	for _, e := range inv.Env {
		fmt.Fprintf(&env, "Environment=%s\n", cQuote(escapeSpecifiers(e)))
	}
	service := fmt.Sprintf(`%s
[Unit]
Description=%s

[Service]
Type=oneshot
%sExecStart=%s
# A run that could not start (its store locked past the lock timeout) exits
# non-zero and stays due: try again in a few minutes, not at the next firing.
Restart=on-failure
RestartSec=5min
`, unitMarker, desc, env.String(), strings.Join(words, " "))
	return []unitFile{{base + ".timer", timer}, {base + ".service", service}}, nil
}

// escapeSpecifiers doubles %, which systemd expands (%h, %n...).
func escapeSpecifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// execQuote quotes one ExecStart word: no specifier or variable is
// expanded.
func execQuote(s string) string {
	return quoteWord(strings.ReplaceAll(escapeSpecifiers(s), "$", "$$"))
}

func quoteWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == '\'' || r == '\\' || r == ';' || r == 0x7f }) {
		return s
	}
	return cQuote(s)
}

func cQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// onCalendar converts a 5-field cron expression into systemd's calendar
// syntax; a day of month with a weekday (cron ORs, systemd ANDs) is
// refused.
func onCalendar(expr string, loc *time.Location) (string, error) {
	f := strings.Fields(expandDescriptor(expr))
	if len(f) != 5 {
		return "", fmt.Errorf("cannot express %q for systemd: not 5 fields", expr)
	}
	min, hour, dom, mon, dow := f[0], f[1], f[2], f[3], f[4]
	if dom != "*" && dow != "*" {
		return "", fmt.Errorf("cannot express %q for systemd: cron runs when day of month OR weekday matches", expr)
	}
	conv := func(field string, start int, names []string) (string, error) {
		if field == "*" {
			return "*", nil
		}
		var parts []string
		for _, p := range strings.Split(field, ",") {
			switch {
			case strings.HasPrefix(p, "*/"):
				if names != nil {
					return "", fmt.Errorf("cannot express step %q in weekdays", p)
				}
				parts = append(parts, fmt.Sprintf("%d/%s", start, p[2:]))
			case strings.Contains(p, "/"):
				return "", fmt.Errorf("cannot express %q for systemd", p)
			case strings.Contains(p, "-"):
				a, b, _ := strings.Cut(p, "-")
				parts = append(parts, pad(name(a, names))+".."+pad(name(b, names)))
			default:
				parts = append(parts, pad(name(p, names)))
			}
		}
		return strings.Join(parts, ","), nil
	}
	weekdays := []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	var out [5]string
	var err error
	for i, c := range []struct {
		field string
		start int
		names []string
	}{{min, 0, nil}, {hour, 0, nil}, {dom, 1, nil}, {mon, 1, nil}, {dow, 0, weekdays}} {
		if out[i], err = conv(c.field, c.start, c.names); err != nil {
			return "", err
		}
	}
	cal := fmt.Sprintf("*-%s-%s %s:%s:00", out[3], out[2], out[1], out[0])
	if dow != "*" {
		cal = out[4] + " " + cal
	}
	switch {
	case loc == nil:
		return cal + " UTC", nil
	case loc == time.Local:
		return cal, nil // systemd's default is the local zone
	}
	return cal + " " + loc.String(), nil
}

func name(v string, names []string) string {
	if names == nil {
		return v
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < len(names) {
		return names[n]
	}
	return v
}

func pad(v string) string {
	if n, err := strconv.Atoi(v); err == nil && n < 10 {
		return fmt.Sprintf("%02d", n)
	}
	return v
}

// pressureExportCron is when an exported pressure job looks at the free
// space, as the daemon does.
const pressureExportCron = "* * * * *"

// ExportJobs returns the jobs an export writes units for: s's scheduled
// jobs, then its pressure jobs with the cron pressureExportCron.
func (s *Scheduler) ExportJobs() []Job {
	jobs := s.Jobs()
	for _, p := range s.PressureJobs() {
		p.Cron = pressureExportCron
		jobs = append(jobs, p)
	}
	return jobs
}

// WriteUnits writes each job's units into the directory out, never
// through what is planted there, then removes the units an earlier export
// wrote whose job is gone. It returns the files written, also before an
// error, and the names of the units removed.
func WriteUnits(out string, jobs []Job, inv Invocation, loc *time.Location) (written, removed []string, err error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	root, err := safeio.OpenRoot(out)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	keep := map[string]bool{}
	for _, j := range jobs {
		units, err := systemdUnits(j, inv, loc)
		if err != nil {
			return written, removed, err
		}
		for _, u := range units {
			if err := writeUnit(root, u); err != nil {
				return written, removed, err
			}
			keep[u.Name] = true
			written = append(written, filepath.Join(out, u.Name))
		}
	}
	entries, err := safeio.ReadDir(out)
	if err != nil {
		return written, removed, err
	}
	for _, e := range entries {
		n := e.Name()
		if keep[n] || !e.Type().IsRegular() || !strings.HasPrefix(n, "hab-gc-") ||
			!(strings.HasSuffix(n, ".timer") || strings.HasSuffix(n, ".service")) {
			continue
		}
		if isExportedUnit(root, n) {
			if err := safeio.RemoveAt(root, n); err != nil {
				return written, removed, err
			}
			removed = append(removed, n)
		}
	}
	return written, removed, nil
}

func writeUnit(root *os.Root, u unitFile) error {
	f, err := os.CreateTemp(root.Name(), ".hab-gc-export-*")
	if err != nil {
		return err
	}
	tmp := filepath.Base(f.Name())
	_, err = f.WriteString(u.Content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, u.Name)
	}
	if err != nil {
		safeio.RemoveAt(root, tmp)
	}
	return err
}

// isExportedUnit reports whether name is a regular file that starts with
// unitMarker.
func isExportedUnit(root *os.Root, name string) bool {
	f, err := safeio.OpenAt(root, name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	buf := make([]byte, len(unitMarker))
	_, err = io.ReadFull(f, buf)
	return err == nil && string(buf) == unitMarker
}
