"""Ingestion of curated knowledge into the store: ``akg-ingest PATH...``.

Markdown files become heading-aware chunks in the ``docs`` collection; kernel folders (a task, one
or more ``{dsl}_{backend}.py`` candidates and their JSON sidecars) become records in ``kernels``.
Ingestion is incremental: content hashes kept on every stored row decide what is new, changed,
unchanged or gone, so re-running over an unchanged tree embeds nothing.

Modules: ``discover`` (arguments -> roots, docs, kernel folders), ``textfile`` (reading input
safely), ``markdown`` (front matter and labels), ``chunk`` (token-bounded chunks), ``kernels``
(kernel folders), ``manifest`` (what the store already holds), ``writer`` (embedding and crash-safe
writes), ``runner`` (the whole pass), ``report`` (its summary), ``cli`` (the command).
"""
