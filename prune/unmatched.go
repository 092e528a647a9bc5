package prune

import "github.com/hab-gc/hab-gc/retention"

// The settings an unmatched warning is about, as RefuseUnmatched names
// them to its caller (the keys of hab-gc's configuration).
const (
	// SettingExclude: an exclude (retention.Policy.Excludes); the source
	// given with it is that pin's Exclude.Source, since the pins of one
	// run come from several places.
	SettingExclude = "exclude"
	// SettingOnly: the Only list (retention.Policy.Only).
	SettingOnly = "only"
	// SettingKeepLatestFor: the per-package counts
	// (retention.Policy.KeepLatestFor).
	SettingKeepLatestFor = "keep_latest_for"
)

// unmatchedRefusals returns the plan's warnings that refuse a real run
// (RefuseUnmatched): unmatched (retention.Warning.Unmatched) and given on
// the command line. A nil plan or onCommandLine refuses nothing.
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
