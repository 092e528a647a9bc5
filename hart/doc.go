// Package hart reads Habitat package archives (.hart) as Habitat does, with
// bounds: the header, then the xz tar, whose metadata entries match
// Habitat's ^/?(?:opt/)?hab/pkgs/ORIGIN/NAME/VERSION/RELEASE/FILE$
// (components/core/src/package/archive.rs, METAFILE_REGXS). An archive is
// its IDENT, as PackageArchive::ident, never its file name; nothing read
// from it is used as a path. See ExampleRead.
package hart
