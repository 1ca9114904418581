//! One instruction through several paths (`probe --via direct,vkd3d-shader,...`): each
//! violation class's count per path, and where a translator changes the verdict. A class
//! seen through a translator but not on the direct path was introduced by the translation;
//! one seen directly but not through a translator is one that translator works around.

use crate::judge::{Family, Findings, OpFindings, Via, ViolationClass};

/// What a translated path did to a class, against the direct path of the same device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The class appears through the translator and not directly.
    Introduced,
    /// The class appears directly and not through the translator.
    WorkedAround,
}

impl Change {
    /// The word of reports.
    pub fn name(self) -> &'static str {
        match self {
            Change::Introduced => "introduced",
            Change::WorkedAround => "worked around",
        }
    }
}

/// One class of one instruction, across the paths it ran through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathClass {
    /// The instruction's name and format label.
    pub op: &'static str,
    /// Its format label.
    pub format: String,
    /// Its family (an f16 add and an f32 add are different rows).
    pub family: Family,
    /// The class, as the judge names it.
    pub class: ViolationClass,
    /// Per path of the report, in order: `None` where the instruction did not run through
    /// it (skipped), else the class's count there (0 when absent).
    pub counts: Vec<(Via, Option<u64>)>,
    /// Per translated path where the verdict differs from the direct one.
    pub changes: Vec<(Via, Change)>,
}

/// The paths the report's instructions ran through, in report order.
pub fn paths(r: &Findings) -> Vec<Via> {
    let mut v: Vec<Via> = r.ops.iter().map(|o| o.via).collect();
    v.sort();
    v.dedup();
    v
}

/// Whether the report shows more than the direct path (its renderers then name the path
/// of every row).
pub fn translated(r: &Findings) -> bool {
    r.ops.iter().any(|o| o.via.translated())
}

fn ran(op: &OpFindings) -> bool {
    op.skipped.is_none()
}

/// Every class of every instruction, counted per path, with the translators' changes;
/// empty when the report has one path. Rows in the report's instruction order, then by
/// the class's first appearance.
pub fn compare(r: &Findings) -> Vec<PathClass> {
    let paths = paths(r);
    if paths.len() < 2 {
        return Vec::new();
    }
    let same = |a: &OpFindings, b: &OpFindings| a.name == b.name && a.family == b.family;
    let mut rows: Vec<PathClass> = Vec::new();
    for op in &r.ops {
        for c in &op.classes {
            if rows
                .iter()
                .any(|row| row.op == op.name && row.family == op.family && row.class == c.class)
            {
                continue;
            }
            let of = |via: Via| r.ops.iter().find(|o| same(o, op) && o.via == via);
            let counts: Vec<(Via, Option<u64>)> = paths
                .iter()
                .map(|&via| {
                    let n = of(via).filter(|o| ran(o)).map(|o| {
                        o.classes
                            .iter()
                            .find(|k| k.class == c.class)
                            .map_or(0, |k| k.count)
                    });
                    (via, n)
                })
                .collect();
            let direct = counts
                .iter()
                .find(|(v, _)| *v == Via::Direct)
                .and_then(|(_, n)| *n);
            let changes = counts
                .iter()
                .filter(|(v, _)| v.translated())
                .filter_map(|&(v, n)| match (direct, n) {
                    (Some(0), Some(t)) if t > 0 => Some((v, Change::Introduced)),
                    (Some(d), Some(0)) if d > 0 => Some((v, Change::WorkedAround)),
                    _ => None,
                })
                .collect();
            rows.push(PathClass {
                op: op.name,
                format: op.format.clone(),
                family: op.family,
                class: c.class,
                counts,
                changes,
            });
        }
    }
    rows
}

/// Whether class `class` of `op` (run through a translator) is absent from the direct run
/// of the same instruction in `r`, which ran: the translation introduced it. `false` for
/// direct ops and when the direct path did not run.
pub fn introduced(r: &Findings, op: &OpFindings, class: &ViolationClass) -> bool {
    op.via.translated()
        && r.ops.iter().any(|o| {
            o.name == op.name
                && o.family == op.family
                && o.via == Via::Direct
                && ran(o)
                && o.classes.iter().all(|k| k.class != *class)
        })
}

/// The translated paths that ran `op` (a direct op) without its class `class`: they work
/// around it.
pub fn worked_around_by(r: &Findings, op: &OpFindings, class: &ViolationClass) -> Vec<Via> {
    if op.via.translated() {
        return Vec::new();
    }
    r.ops
        .iter()
        .filter(|o| {
            o.name == op.name
                && o.family == op.family
                && o.via.translated()
                && ran(o)
                && o.classes.iter().all(|k| k.class != *class)
        })
        .map(|o| o.via)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d::{Op, OpCommand, RuleSet};
    use crate::format::F32;
    use crate::judge::{ClassCount, ViolationKind};

    fn sqrt_class(kind: ViolationKind) -> ViolationClass {
        ViolationClass::new(kind, OpCommand::new(Op::Sqrt, F32, RuleSet::D3D11))
    }

    fn op(name: &'static str, via: Via, classes: &[(ViolationClass, u64)]) -> OpFindings {
        let mut o = crate::judge::findings::sample().ops[0].clone();
        o.name = name;
        o.via = via;
        o.classes = classes
            .iter()
            .map(|&(c, n)| ClassCount {
                class: c,
                count: n,
                example: String::new(),
                rule: String::new(),
                first: 0,
            })
            .collect();
        o
    }

    #[test]
    fn classes_are_counted_per_path_and_marked_where_a_translator_changes_them() {
        let mut r = crate::judge::findings::sample();
        let denorm = sqrt_class(ViolationKind::DenormOperand);
        let nearest = sqrt_class(ViolationKind::Miss1);
        let mut skipped = op("sqrt", Via::DxbcSpirv, &[]);
        skipped.skipped = Some("refused".into());
        r.ops = vec![
            op("sqrt", Via::Direct, &[(denorm, 5)]),
            op("sqrt", Via::Vkd3dShader, &[(nearest, 2)]),
            skipped,
        ];
        let rows = compare(&r);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0].counts,
            vec![
                (Via::Direct, Some(5)),
                (Via::Vkd3dShader, Some(0)),
                (Via::DxbcSpirv, None)
            ]
        );
        assert_eq!(
            rows[0].changes,
            vec![(Via::Vkd3dShader, Change::WorkedAround)]
        );
        assert_eq!(
            rows[1].changes,
            vec![(Via::Vkd3dShader, Change::Introduced)]
        );
        assert!(introduced(&r, &r.ops[1], &nearest));
        assert!(!introduced(&r, &r.ops[0], &denorm));
        assert_eq!(
            worked_around_by(&r, &r.ops[0], &denorm),
            vec![Via::Vkd3dShader]
        );
        r.ops.truncate(1);
        assert!(compare(&r).is_empty());
    }
}
