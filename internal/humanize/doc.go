// Package humanize spells numbers for hab-gc's reasons and messages.
package humanize
