//! What every SVG heaplab writes must be: one XML document that a real parser reads, with
//! each configuration's curve or bars drawn in its colour. Shared by heaplab-plot's tests
//! and the CLI's, which include this file by its path, so both hold SVGs to one rule.

#![allow(dead_code)] // Each test binary that includes this uses some of it.

/// Parses `svg` as XML, failing the test with the parser's words and `what` (the file or
/// the chart) when it is not one document whose root is `<svg>`.
pub fn parse<'a>(what: &str, svg: &'a str) -> roxmltree::Document<'a> {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("{what} is not an XML document: {e}"));
    let root = doc.root_element();
    assert_eq!(
        root.tag_name().name(),
        "svg",
        "{what}: the root element is <{}>",
        root.tag_name().name()
    );
    doc
}

/// The `#RRGGBB` of the `i`th configuration, as the SVG writer spells colours.
pub fn colour(i: usize) -> String {
    let c = heaplab_plot::color(i);
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// How many lines of at least `min_points` points the document draws in the `i`th
/// configuration's colour: its curves, not the two-point swatch of a legend.
pub fn lines(doc: &roxmltree::Document, i: usize, min_points: usize) -> usize {
    let colour = colour(i);
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(&colour))
        .filter(|n| {
            n.attribute("points")
                .map_or(0, |p| p.split_whitespace().count())
                >= min_points
        })
        .count()
}

/// How many rectangles the document fills in the `i`th configuration's colour: its bars
/// and its legend's boxes.
pub fn boxes(doc: &roxmltree::Document, i: usize) -> usize {
    let colour = colour(i);
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(&colour))
        .count()
}
