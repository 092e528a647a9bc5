package hart

var (
	ParseHeader = parseHeader
	MetaPath    = metaPath
)
