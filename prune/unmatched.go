package prune

import "github.com/hab-gc/hab-gc/retention"

// The settings an unmatched warning is about, as UnmatchedRefusals names
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

// UnmatchedRefusals returns the plan's warnings that refuse a real run: a
// pin, Only entry or keep-latest-for count that matches no installed
// release (retention.Warning.Unmatched) and was given on the command
// line, where a typo would remove what the operator meant to keep. From a
// config file or the environment, often shared across machines, such a
// pin is normal: it is only warned about. onCommandLine says whether a
// setting was given on the command line: its key (SettingExclude,
// SettingOnly, SettingKeepLatestFor) and, for an exclude, the pin's
// source. A nil plan or onCommandLine refuses nothing.
func UnmatchedRefusals(plan *retention.Plan, onCommandLine func(key, source string) bool) []retention.Warning {
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
