package e2e

// schemaInstance returns the smallest JSON value the JSON schema accepts
// for the shapes Claude Code's side requests use: objects with required
// properties, booleans (true), strings, numbers, arrays, enums and consts.
// It is not a general schema solver; a schema it does not understand gives
// an empty object.
func schemaInstance(schema map[string]any) any {
	if v, ok := schema["const"]; ok {
		return v
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	if list, ok := schema["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "boolean":
		return true
	case "string":
		return "e2e mock"
	case "integer", "number":
		return 0
	case "array":
		return []any{}
	case "null":
		return nil
	}
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			continue
		}
		sub, _ := props[name].(map[string]any)
		out[name] = schemaInstance(sub)
	}
	return out
}
