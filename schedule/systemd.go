package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Unit is one file of a systemd timer/service pair.
type Unit struct {
	Name, Content string
}

// SystemdUnits returns a timer and a service unit for a job: the timer
// fires at the job's resolved time (OnCalendar, Persistent=true so a
// missed run happens at boot), the service runs `EXE daemon --once` for
// that job. loc is the zone the cron expression is read in.
func SystemdUnits(j Job, exe, schedulesDir, statePath string, loc *time.Location) ([]Unit, error) {
	cal, err := OnCalendar(j.Cron, loc)
	if err != nil {
		return nil, fmt.Errorf("job %s (%s): %w", j.Key, j.Spec.Raw, err)
	}
	base := fmt.Sprintf("hab-gc-%s-%s", j.Type, j.Key)
	desc := fmt.Sprintf("hab-gc %s of %s (%s, owner %s)", j.Type, j.Store, j.Spec.Raw, j.Owner)
	timer := fmt.Sprintf(`[Unit]
Description=%s

[Timer]
OnCalendar=%s
Persistent=true
Unit=%s.service

[Install]
WantedBy=timers.target
`, desc, cal, base)
	service := fmt.Sprintf(`[Unit]
Description=%s

[Service]
Type=oneshot
ExecStart=%s daemon --once --schedules %s --state %s --job %s
`, desc, exe, quoteArg(schedulesDir), quoteArg(statePath), j.Key)
	return []Unit{{base + ".timer", timer}, {base + ".service", service}}, nil
}

func quoteArg(s string) string {
	if strings.ContainsAny(s, " \t\"'\\") {
		return strconv.Quote(s)
	}
	return s
}

// OnCalendar converts a 5-field cron expression into systemd's calendar
// syntax, in loc. It supports *, numbers, lists, ranges and */N steps;
// a day of month together with a weekday (which cron ORs and systemd ANDs)
// is refused.
func OnCalendar(expr string, loc *time.Location) (string, error) {
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
