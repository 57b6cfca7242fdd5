"""Typed models of every resource, nested object and request body of the service.

Module per area: ``service`` (Token, Usage: 03-conventions), ``channel`` and ``webhooks``
(document 01), ``property_data`` modules (document 02). Conventions in ``base``.
"""
