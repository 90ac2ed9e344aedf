"""The API's reference page (``/docs``), drawn from its OpenAPI schema on the server.

FastAPI's own ``/docs`` is Swagger UI, whose scripts come from a public CDN: blank offline, and a
third party's code running on the service's origin.  This page is plain HTML from the same schema
(no script at all): every endpoint with its parameters, body and answers, then the bodies' shapes.
"""

from __future__ import annotations


def api_reference(schema: dict) -> dict:
    """``{"endpoints": […], "shapes": […]}`` of an OpenAPI schema, as the page lists them."""
    shapes = schema.get("components", {}).get("schemas", {})

    def resolve(node: dict) -> dict:
        ref = node.get("$ref", "")
        return shapes.get(ref.rsplit("/", 1)[-1], {}) if ref else node

    def type_of(node: dict) -> str:
        node = resolve(node)
        if "anyOf" in node:
            return " or ".join(type_of(n) for n in node["anyOf"])
        if node.get("type") == "array":
            return f"list of {type_of(node.get('items', {}))}"
        if "properties" in node:
            return node.get("title", "object")
        limits = [f"{word} {node[key]:g}" for key, word in (("minimum", "≥"), ("maximum", "≤"))
                  if isinstance(node.get(key), (int, float))]  # fmt: skip
        return " ".join([node.get("type", "any"), *limits])

    def fields(node: dict) -> list[dict]:
        node = resolve(node)
        return [
            {"name": name, "type": type_of(field), "required": name in node.get("required", []),
             "description": field.get("description", "")}
            for name, field in node.get("properties", {}).items()
        ]  # fmt: skip

    endpoints = []
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            params = [
                {"name": p["name"], "type": type_of(p.get("schema", {})), "required": p.get("required", False),
                 "description": f"in the {p['in']}" + (f": {p['description']}" if p.get("description") else "")}
                for p in op.get("parameters", [])
            ]  # fmt: skip
            endpoints.append({
                "method": method.upper(), "path": path, "summary": op.get("summary", ""),
                "description": op.get("description", ""), "params": params,
                "body": type_of(body) if body else None, "responses": sorted(op.get("responses", {})),
            })  # fmt: skip
    named = [{"name": name, "fields": fields(node)} for name, node in shapes.items()
             if "properties" in node and not name.endswith("Error")]  # fmt: skip
    return {
        "title": schema.get("info", {}).get("title", ""),
        "description": schema.get("info", {}).get("description", ""),
        "endpoints": endpoints,
        "shapes": named,
    }
