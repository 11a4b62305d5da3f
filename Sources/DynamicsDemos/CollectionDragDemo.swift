import DynamicsKit

extension Demo {
    /// Holds an item by its four corners: one attachment per corner to an anchor that keeps the corner's offset from
    /// a moving point. The item follows the point without turning.
    final class RectangleAttachmentBehavior: DynamicBehavior {
        let item: DynamicItem
        private var corners: [(attachment: AttachmentBehavior, offset: UIOffset)] = []

        init(item: DynamicItem, point: CGPoint) {
            self.item = item
            super.init()
            let w = item.bounds.width / 2, h = item.bounds.height / 2
            for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] as [(CGFloat, CGFloat)] {
                let offset = UIOffset(horizontal: sx * w, vertical: sy * h)
                let corner = AttachmentBehavior(item: item, offsetFromCenter: offset,
                                                attachedToAnchor: CGPoint(x: point.x + offset.horizontal, y: point.y + offset.vertical))
                corner.length = 0
                corner.frequency = 5
                corner.damping = 0.9
                addChildBehavior(corner)
                corners.append((corner, offset))
            }
        }

        /// Moves the point the item's center is held to.
        func updateAttachmentLocation(_ point: CGPoint) {
            for (corner, offset) in corners {
                corner.anchorPoint = CGPoint(x: point.x + offset.horizontal, y: point.y + offset.vertical)
            }
        }
    }

    /// Drags several items at once: a rectangle attachment per item, each keeping its item's offset from the touch.
    final class DragBehavior: DynamicBehavior {
        private var held: [(behavior: RectangleAttachmentBehavior, offset: CGVector)] = []

        init(items: [DynamicItem], touch: CGPoint) {
            super.init()
            for item in items {
                let r = RectangleAttachmentBehavior(item: item, point: item.center)
                addChildBehavior(r)
                held.append((r, CGVector(dx: item.center.x - touch.x, dy: item.center.y - touch.y)))
            }
        }

        func updateDragLocation(_ touch: CGPoint) {
            for (r, offset) in held { r.updateAttachmentLocation(CGPoint(x: touch.x + offset.dx, y: touch.y + offset.dy)) }
        }
    }

    /// A collection-view layout stand-in: cells in a column; while an animator runs, the layout answers from it.
    final class ColumnLayout {
        let animator: DynamicAnimator
        let cells: [LayoutAttributes]

        init(count: Int, bounds: CGRect) {
            animator = DynamicAnimator(layoutBounds: bounds)
            cells = (0..<count).map { k in
                LayoutAttributes(forCellWith: IndexPath(item: k, section: 0), frame: CGRect(x: 20, y: 20 + CGFloat(k) * 70, width: 335, height: 60))
            }
        }

        /// UICollectionViewLayout's question, answered from the animator's items.
        func layoutAttributesForElements(in rect: CGRect) -> [LayoutAttributes] {
            animator.items(in: rect).compactMap { $0 as? LayoutAttributes }
        }
    }

    /// Collection drag: three selected cells of a column layout are dragged together by a scripted pan; the layout
    /// answers `items(in:)` from the animator while they move.
    static let collectionDrag = Demo(name: "collection-drag", summary: "a DragBehavior of four-corner attachments drags three layout cells at once; the layout answers items(in:)") { context in
        let layout = ColumnLayout(count: 8, bounds: CGRect(x: 0, y: 0, width: 375, height: 667))
        let selected = [1, 2, 5].map { layout.cells[$0] }
        let starts = selected.map(\.center)
        let touch = selected[0].center
        let drag = DragBehavior(items: selected, touch: touch)
        layout.animator.addBehavior(drag)
        context.watch(layout.animator, items: selected, title: "collection drag")
        // The pan: 120 pt right and 200 pt down over half a second, then the finger rests for a second.
        let move = CGVector(dx: 120, dy: 200)
        for k in 1...90 {
            let t = min(CGFloat(k) / 30, 1)
            drag.updateDragLocation(CGPoint(x: touch.x + move.dx * t, y: touch.y + move.dy * t))
            layout.animator.step()
        }
        let worst = zip(selected, starts).map { cell, start in
            hypot(cell.center.x - (start.x + move.dx), cell.center.y - (start.y + move.dy))
        }.max() ?? .infinity
        let upright = selected.allSatisfy { abs($0.transform.rotationAngle) < 0.01 }
        // Where the first cell is now, the layout reports it (and the cells that were not dragged stay out of it).
        let dropped = selected[0].frame.insetBy(dx: 5, dy: 5)
        let answered = layout.layoutAttributesForElements(in: dropped).map(\.indexPath.item)
        let found = layout.animator.layoutAttributesForCell(at: IndexPath(item: 5, section: 0)) === selected[2]
        return DemoResult(worst < 1 && upright && answered.contains(1) && found,
                          "3 cells moved with the pan, worst miss \(String(format: "%.2f", Double(worst))) pt, upright: \(upright); the layout answers cells \(answered) at the first cell's new place")
    }
}
