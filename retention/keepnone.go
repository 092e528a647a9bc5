package retention

// KeepsNoneStoreWide reports whether p is KeepNone with no Only or
// ServicesOnly limit: rarely meant, so hab-gc run asks --allow-keep-none.
func KeepsNoneStoreWide(p Policy) bool {
	return p.KeepLatest == KeepNone && len(p.Only) == 0 && !p.ServicesOnly
}
