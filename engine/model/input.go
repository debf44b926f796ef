package model

// Input hardening shared by the JSON and YAML importers.

// JSONDepth returns how deep objects and arrays nest in JSON text, without
// decoding it, so an importer can refuse a deeply nested document before
// the decoder recurses into it.
func JSONDepth(data []byte) int {
	d, maxD, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			maxD = max(maxD, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return maxD
}

// Position returns the 1-based line and column of a byte offset in text.
func Position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
