// UIKit spellings, so code written for iOS ports with few edits.
#if !canImport(UIKit)
public typealias UIDynamicAnimator = DynamicAnimator
public typealias UIDynamicAnimatorDelegate = DynamicAnimatorDelegate
public typealias UIDynamicItem = DynamicItem
public typealias UIDynamicItemGroup = DynamicItemGroup
public typealias UIDynamicItemCollisionBoundsType = DynamicItemCollisionBoundsType
public typealias UIDynamicBehavior = DynamicBehavior
public typealias UIGravityBehavior = GravityBehavior
public typealias UICollisionBehavior = CollisionBehavior
public typealias UICollisionBehaviorDelegate = CollisionBehaviorDelegate
public typealias UICollisionBehaviorMode = CollisionBehavior.Mode
public typealias UIPushBehavior = PushBehavior
public typealias UIPushBehaviorMode = PushBehavior.Mode
public typealias UISnapBehavior = SnapBehavior
public typealias UIAttachmentBehavior = AttachmentBehavior
public typealias UIAttachmentBehaviorType = AttachmentBehavior.AttachedBehaviorType
public typealias UIDynamicItemBehavior = DynamicItemBehavior
public typealias UIBezierPath = BezierPath
public typealias UICollectionViewLayoutAttributes = LayoutAttributes
#endif
