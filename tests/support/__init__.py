"""Helpers the tests of several packages share, one module a concept: images, ports, the SMTP server,
service processes, the S3 stand-in."""
