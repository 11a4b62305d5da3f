/// Told when an animator pauses and resumes (UIKit's `UIDynamicAnimatorDelegate`); both methods are optional.
public protocol DynamicAnimatorDelegate: AnyObject {
    func dynamicAnimatorWillResume(_ animator: DynamicAnimator)
    func dynamicAnimatorDidPause(_ animator: DynamicAnimator)
}

extension DynamicAnimatorDelegate {
    public func dynamicAnimatorWillResume(_ animator: DynamicAnimator) {}
    public func dynamicAnimatorDidPause(_ animator: DynamicAnimator) {}
}
