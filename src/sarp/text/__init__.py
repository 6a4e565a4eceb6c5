"""Linear-time scanners over reply text: lines, inline markup, tables, locations."""
