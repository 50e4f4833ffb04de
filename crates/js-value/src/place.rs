//! Where in a value an error is: the path with the `paths` feature, nothing
//! (and no code) without it.

#[cfg(feature = "paths")]
mod paths {
    /// A detail (the unknown name) and the path, outermost first.
    #[derive(Debug, Default)]
    pub(crate) struct Place {
        detail: String,
        path: String,
    }

    impl Place {
        pub(crate) fn none() -> Self {
            Self::default()
        }

        pub(crate) fn detailed(detail: &str) -> Self {
            Self { detail: detail.to_owned(), path: String::new() }
        }

        fn dot_before(&mut self) {
            if !(self.path.is_empty() || self.path.starts_with('[')) {
                self.path.insert(0, '.');
            }
        }

        pub(crate) fn in_field(&mut self, name: &str) {
            self.dot_before();
            self.path.insert_str(0, name);
        }

        pub(crate) fn in_element(&mut self, at: u32) {
            let mut digits = [0u8; 10];
            let mut rest = at;
            let mut start = digits.len();
            loop {
                start -= 1;
                // `rest % 10` < 10: the cast cannot truncate.
                digits[start] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            let index: String = digits[start..].iter().map(|&digit| char::from(digit)).collect();
            self.dot_before();
            self.path.insert(0, ']');
            self.path.insert_str(0, &index);
            self.path.insert(0, '[');
        }

        /// Appends `` `detail` at path `` to a sentence.
        pub(crate) fn describe(&self, text: &mut String) {
            if !self.detail.is_empty() {
                text.push_str(" `");
                text.push_str(&self.detail);
                text.push('`');
            }
            if !self.path.is_empty() {
                text.push_str(" at ");
                text.push_str(&self.path);
            }
        }
    }
}

#[cfg(not(feature = "paths"))]
mod paths {
    /// Nothing: the sentence alone.
    #[derive(Debug)]
    pub(crate) struct Place;

    impl Place {
        pub(crate) fn none() -> Self {
            Self
        }

        pub(crate) fn detailed(_detail: &str) -> Self {
            Self
        }

        #[inline(always)]
        pub(crate) fn in_field(&mut self, _name: &str) {}

        #[inline(always)]
        pub(crate) fn in_element(&mut self, _at: u32) {}

        pub(crate) fn describe(&self, _text: &mut String) {}
    }
}

pub(crate) use paths::Place;
