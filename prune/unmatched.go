package prune

import "github.com/hab-gc/hab-gc/retention"

// The configuration keys RefuseUnmatched asks about.
const (
	SettingExclude       = "exclude"
	SettingOnly          = "only"
	SettingKeepLatestFor = "keep_latest_for"
)

func unmatchedRefusals(plan *retention.Plan, onCommandLine func(key, source string) bool) []retention.Warning {
	if plan == nil || onCommandLine == nil {
		return nil
	}
	var out []retention.Warning
	for _, w := range plan.Warnings {
		if !w.Unmatched() {
			continue
		}
		key := SettingExclude
		switch w.Kind {
		case retention.WarnUnmatchedOnly:
			key = SettingOnly
		case retention.WarnUnmatchedKeepLatestFor:
			key = SettingKeepLatestFor
		}
		if onCommandLine(key, w.Source) {
			out = append(out, w)
		}
	}
	return out
}
