package retention

// KeepsNoneStoreWide reports whether p keeps no release of any package by
// count (KeepLatest is KeepNone) across the whole store: nothing limits it
// to some packages (Only) or to the loaded services' (ServicesOnly). Such
// a policy removes every release nothing protects (in use, pinned,
// needed): rarely what an operator means by a count of 0, so hab-gc run
// asks for a confirmation (--allow-keep-none) before it applies one.
// Limited to the packages named, it is what `hab pkg uninstall
// --keep-latest 0 core/redis` does.
func KeepsNoneStoreWide(p Policy) bool {
	return p.KeepLatest == KeepNone && len(p.Only) == 0 && !p.ServicesOnly
}
