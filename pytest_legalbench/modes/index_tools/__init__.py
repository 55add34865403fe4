"""One tool layer over the structured index: what a model or an MCP client may ask of a corpus.

``toolbox.IndexTools`` answers the tools ``specs.TOOL_SPECS`` describes: the documents and
transaction sets, search, a provision's text, its references, its amendments, a defined term's
definition and a document's outline. Every result is bounded (``bounds``) and carries its token
count; a call that cannot be answered raises ``bounds.ToolError``, which callers hand back to
the model as a tool error. Pure: no model calls, no MCP, no pytest.
"""
